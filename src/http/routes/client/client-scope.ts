// The /api/client scope: JSON bodies capped at BODY_LIMIT_CLIENT_BYTES, parsed from the raw bytes
// (kept on the request for SDK signature checks), with __proto__ / constructor keys refused, and
// ingest refused with 503 + Retry-After while the fact backlog is over FACT_BACKLOG_MAX_ROWS.
import type { FastifyInstance } from 'fastify';
import sjson from 'secure-json-parse';
import type { Deps } from '../../../deps.ts';
import { BACKLOG_RETRY_AFTER_S, createBacklogCheck } from '../../../domain/facts/check-backlog.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';

/** Client routes that only read: the backlog cap never applies to them. */
const READ_ROUTES = new Set(['/api/client/attribution-data']);

declare module 'fastify' {
  interface FastifyRequest {
    rawBody: Buffer | null;
  }
}

/**
 * A client body's JSON (also the Web SDK's, routes/web): empty is {}, __proto__ / constructor keys
 * are refused, anything unreadable is 400 `Invalid JSON body`.
 */
export function parseClientJson(body: Buffer, done: (err: Error | null, body?: unknown) => void): void {
  if (body.length === 0) {
    done(null, {});
    return;
  }
  try {
    done(null, sjson.parse(body.toString('utf8'), undefined, { protoAction: 'error', constructorAction: 'error' }));
  } catch {
    done(new ApiError(400, MSG.invalidJsonBody), undefined);
  }
}

export function configureClientScope(app: FastifyInstance, deps: Deps): void {
  // Ingest answers 503 + Retry-After before reading the body while the fact backlog is over its
  // cap (ClickHouse is behind); reads keep working.
  const overBacklog = createBacklogCheck(deps);
  app.addHook('onRequest', async (req) => {
    if (req.method === 'POST' && !READ_ROUTES.has(req.routeOptions.url ?? '') && (await overBacklog())) {
      throw new ApiError(503, MSG.ingestBacklogFull, undefined, { 'retry-after': String(BACKLOG_RETRY_AFTER_S) });
    }
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: deps.config.bodyLimitClient },
    (req, body: Buffer, done) => {
      req.rawBody = body;
      parseClientJson(body, done);
    },
  );
}
