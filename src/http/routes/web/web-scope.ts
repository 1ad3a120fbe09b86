// The /web scope, where customers' web pages post (the Web SDK). The page is on the customer's
// origin, so every answer, errors and the preflight included, lets it through CORS. The SDK's
// sendBeacon always goes with credentials (Beacon spec), which fail on Access-Control-Allow-Origin:
// *, so the page's Origin is echoed with Access-Control-Allow-Credentials: true and Vary: Origin
// (`*` only when no Origin came). No cookie is ever read here (the token is in the body), so this
// grants a page nothing more. Bodies are JSON sent as application/json (the SDK's fetch, its beacon
// Blob and its XHR) or text/plain (a beacon of a plain string, a "simple" request that skips the
// preflight), capped at BODY_LIMIT_CLIENT_BYTES like the client routes, and refused with 503 +
// Retry-After while the fact backlog is over its cap (nothing is stored then, so the SDK's fallback
// to our default host cannot count it twice).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { BACKLOG_RETRY_AFTER_S, createBacklogCheck } from '../../../domain/facts/check-backlog.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { parseClientJson } from '../client/client-scope.ts';

/** A header name list as browsers send Access-Control-Request-Headers (tokens and commas only). */
const HEADER_LIST_RE = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+(\s*,\s*[A-Za-z0-9!#$%&'*+.^_`|~-]+)*$/;
const PREFLIGHT_MAX_AGE_S = 86_400;
/** A serialized origin as browsers send it (scheme://host[:port], or "null" from a sandboxed page). */
const ORIGIN_RE = /^(null|[A-Za-z][A-Za-z0-9+.-]*:\/\/[A-Za-z0-9.\-_~[\]:%]+)$/;

function allowOrigin(req: FastifyRequest, reply: FastifyReply): void {
  const origin = req.headers.origin;
  if (typeof origin === 'string' && ORIGIN_RE.test(origin)) {
    reply.header('access-control-allow-origin', origin);
    reply.header('access-control-allow-credentials', 'true');
  } else {
    reply.header('access-control-allow-origin', '*');
  }
  // The answer depends on the Origin: a cache must not hand one page's answer to another.
  reply.header('vary', 'Origin');
}

export function configureWebScope(app: FastifyInstance, deps: Deps): void {
  app.addHook('onSend', async (req, reply, payload) => {
    allowOrigin(req, reply);
    return payload;
  });
  const overBacklog = createBacklogCheck(deps);
  app.addHook('onRequest', async (req) => {
    if (req.method === 'POST' && (await overBacklog())) {
      throw new ApiError(503, MSG.ingestBacklogFull, undefined, { 'retry-after': String(BACKLOG_RETRY_AFTER_S) });
    }
  });
  app.removeAllContentTypeParsers();
  const limits = { parseAs: 'buffer', bodyLimit: deps.config.bodyLimitClient } as const;
  const parse = (_req: FastifyRequest, body: Buffer, done: (err: Error | null, body?: unknown) => void) =>
    parseClientJson(body, done);
  app.addContentTypeParser('application/json', limits, parse);
  app.addContentTypeParser('text/plain', limits, parse);
}

/** The CORS preflight: 204, POST allowed from any origin with the headers the page asks for. */
export function answerPreflight(req: FastifyRequest, reply: FastifyReply): FastifyReply {
  const asked = req.headers['access-control-request-headers'];
  const headers = typeof asked === 'string' && HEADER_LIST_RE.test(asked.trim()) ? asked.trim() : 'Content-Type';
  return reply
    .code(204)
    .headers({
      'access-control-allow-methods': 'POST, OPTIONS',
      'access-control-allow-headers': headers,
      'access-control-max-age': String(PREFLIGHT_MAX_AGE_S),
    })
    .send();
}
