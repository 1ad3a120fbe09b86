// buildApp(deps): plugins, error handling and route groups. Never listens.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Deps } from './deps.ts';
import { registerErrorHandling } from './http/errors.ts';
import { registerDocsRoutes } from './http/openapi.ts';
import { ipRateLimit } from './http/rate-limit.ts';
import { registerHealthRoutes } from './http/routes/ops/health.ts';
import { registerCampaignRoutes } from './http/routes/v1/campaigns.ts';

/** A hop count trusts that many proxies in front of us (what Fastify documents for a number). */
function trustProxyOption(
  v: boolean | number | string[],
): boolean | string[] | ((addr: string, hop: number) => boolean) {
  return typeof v === 'number' ? (_addr, hop) => hop < v : v;
}

export async function buildApp(deps: Deps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    trustProxy: trustProxyOption(deps.config.trustProxy),
    bodyLimit: deps.config.bodyLimitV1,
    requestTimeout: deps.config.requestTimeoutMs,
    connectionTimeout: deps.config.requestTimeoutMs,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    return503OnClosing: true,
    routerOptions: { maxParamLength: 200 },
  });
  app.decorateRequest('project', null);
  app.decorateRequest('serverKeyId', null);
  registerErrorHandling(app);
  registerHealthRoutes(app, deps);
  registerDocsRoutes(app);
  await app.register(
    async (v1) => {
      v1.addHook('onRequest', ipRateLimit(deps));
      registerCampaignRoutes(v1, deps);
    },
    { prefix: '/api/v1' },
  );
  return app;
}
