// buildApp(deps): plugins, error handling and route groups. Never listens.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Deps } from './deps.ts';
import { ApiError, registerErrorHandling, sendError } from './http/errors.ts';
import { MSG } from './http/messages.ts';
import { registerDocsRoutes } from './http/openapi.ts';
import { ipRateLimit } from './http/rate-limit.ts';
import { registerClientRoutes } from './http/routes/client/client.ts';
import { registerLinkRoutes } from './http/routes/links/links.ts';
import { answerDeepPathLink, isLinkShaped, sendLinkNotFound } from './http/routes/links/redirect.ts';
import { registerMcpRoutes } from './http/routes/mcp/mcp.ts';
import { registerHealthRoutes } from './http/routes/ops/health.ts';
import { registerAnalyticsConnectionRoutes } from './http/routes/v1/analytics-connections.ts';
import { registerAttributedUsersRoute } from './http/routes/v1/attributed-users.ts';
import { registerAttributionResultRoute } from './http/routes/v1/attribution-result.ts';
import { registerAudienceRoutes } from './http/routes/v1/audiences.ts';
import { registerCampaignRoutes } from './http/routes/v1/campaigns.ts';
import { registerConnectionRoutes } from './http/routes/v1/connections.ts';
import { registerDeleteUserRoute } from './http/routes/v1/delete-user.ts';
import { registerReportingRoute } from './http/routes/v1/reporting.ts';
import { registerServerCaptureRoutes } from './http/routes/v1/server-capture.ts';
import { registerSkanSchemaRoutes } from './http/routes/v1/skan-schema.ts';
import { registerSpendRoute } from './http/routes/v1/spend.ts';
import { registerWebRoutes } from './http/routes/web/web.ts';
import { registerRevenueCatWebhook } from './http/routes/webhooks/revenuecat.ts';

/** A hop count trusts that many proxies in front of us (what Fastify documents for a number). */
function trustProxyOption(
  v: boolean | number | string[],
): boolean | string[] | ((addr: string, hop: number) => boolean) {
  return typeof v === 'number' ? (_addr, hop) => hop < v : v;
}

/**
 * Fastify's own JSON parser (same poisoning rules, same errors for a bad body), except that an empty
 * body is no body: many clients send `Content-Type: application/json` on every request, and a DELETE
 * without a body answered 400 Invalid JSON body. A route that needs a body then answers its own text.
 */
function registerJsonParser(app: FastifyInstance): void {
  const { onProtoPoisoning = 'error', onConstructorPoisoning = 'error' } = app.initialConfig;
  const parseJson = app.getDefaultJsonParser(onProtoPoisoning, onConstructorPoisoning);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body: string, done) => {
    if (body.length === 0) {
      done(null, undefined);
      return;
    }
    parseJson(req, body, done);
  });
}

/**
 * Once the server is closing (SIGTERM), a request that still arrives, on a keep-alive connection a
 * load balancer or an SDK's pooled client keeps open, answers 503 with the {msg, status} envelope
 * and Retry-After, before any route work (Fastify closes the connection after it).
 */
function refuseWhileClosing(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async () => {
    if (closing) {
      throw new ApiError(503, MSG.storeUnavailable, undefined, { 'retry-after': '1' });
    }
  });
}

export async function buildApp(deps: Deps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    trustProxy: trustProxyOption(deps.config.trustProxy),
    bodyLimit: deps.config.bodyLimitV1,
    requestTimeout: deps.config.requestTimeoutMs,
    connectionTimeout: deps.config.requestTimeoutMs,
    // Node (20) cuts a slow request only on its connection sweep (every 30 s by default) and, when
    // requestTimeout is set after the server is built (as Fastify does), with headersTimeout left at
    // 60 s: a 1-byte-per-second body was held past the timeout (catalog D6, slow-loris). Giving
    // both to the server's constructor and sweeping every second cuts it within the timeout.
    http: {
      requestTimeout: deps.config.requestTimeoutMs,
      headersTimeout: deps.config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, deps.config.requestTimeoutMs),
    },
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    // Our own 503 while closing (refuseWhileClosing): Fastify's is {error, message, statusCode}.
    return503OnClosing: false,
    // HEAD only where a route asks for it (links, well-known files, health checks): Fastify's HEAD
    // of every GET ran the handler undocumented, and a HEAD of the report used the key's budget.
    exposeHeadRoutes: false,
    // A path parameter may be a user id of 256 characters (client routes accept that many), up to
    // 12 characters each once %-encoded; at 200, DELETE /api/v1/users/:user_id answered 414 for
    // ids longer than that. Each route still checks its own parameter.
    routerOptions: { maxParamLength: 3072 },
    // Malformed URLs (bad %-encoding) still answer with our {msg, status} envelope, or, shaped as a
    // campaign link (README: a GET of one path segment), with the link's 404 page.
    frameworkErrors: (err, req, reply) => {
      if (isLinkShaped(req.method, req.raw.url)) {
        sendLinkNotFound(reply);
        return;
      }
      sendError(
        reply,
        new ApiError(err.statusCode && err.statusCode < 500 ? err.statusCode : 400, MSG.invalidRequestParameters),
      );
    },
  });
  app.decorateRequest('project', null);
  app.decorateRequest('serverKeyId', null);
  app.decorateRequest('rawBody', null);
  // Every body we take is JSON (spec): text/plain is a 415, not a string handed to a route.
  app.removeContentTypeParser('text/plain');
  registerJsonParser(app);
  // A link on a deeper path (`/promo/x?c=<id>`) is answered only where no route matched.
  registerErrorHandling(app, (req, reply) => answerDeepPathLink(deps, req, reply));
  refuseWhileClosing(app);
  registerHealthRoutes(app, deps);
  registerDocsRoutes(app);
  registerLinkRoutes(app, deps);
  await registerClientRoutes(app, deps);
  await registerWebRoutes(app, deps);
  await registerMcpRoutes(app, deps);
  registerRevenueCatWebhook(app, deps);
  await app.register(
    async (v1) => {
      v1.addHook('onRequest', ipRateLimit(deps));
      registerCampaignRoutes(v1, deps);
      registerAttributionResultRoute(v1, deps);
      registerAttributedUsersRoute(v1, deps);
      registerReportingRoute(v1, deps);
      registerSpendRoute(v1, deps);
      registerDeleteUserRoute(v1, deps);
      registerServerCaptureRoutes(v1, deps);
      registerConnectionRoutes(v1, deps);
      registerAnalyticsConnectionRoutes(v1, deps);
      registerSkanSchemaRoutes(v1, deps);
      registerAudienceRoutes(v1, deps);
    },
    { prefix: '/api/v1' },
  );
  return app;
}
