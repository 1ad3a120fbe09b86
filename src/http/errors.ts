// ApiError and the single error handler: every error leaves as the {msg, status} envelope.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SecretsKeyError } from '../lib/secrets.ts';
import { abortedByConflict, connectionLost } from '../store/postgres/pool.ts';
import { MSG } from './messages.ts';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly msg: string,
    readonly extra?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(msg);
  }
}

export class RateLimitError extends ApiError {
  constructor(retryAfterSeconds: number) {
    super(429, MSG.rateLimited, undefined, { 'retry-after': String(retryAfterSeconds) });
  }
}

function clientError(err: FastifyError): ApiError | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, MSG.bodyTooLarge);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(415, MSG.unsupportedMediaType);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError(400, MSG.invalidJsonBody);
  }
  // JSON.parse errors, prototype poisoning and too-deep nesting arrive as plain 400s.
  if (err.statusCode === 400 || err instanceof SyntaxError) {
    return new ApiError(400, MSG.invalidJsonBody);
  }
  return undefined;
}

export function sendError(reply: FastifyReply, e: ApiError): FastifyReply {
  if (e.headers) {
    reply.headers(e.headers);
  }
  return reply.code(e.status).send({ msg: e.msg, status: e.status, ...e.extra });
}

/** Answers a request no route matched, when it is its own (a link on a deeper path); else undefined. */
export type NotFoundFallback = (req: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> | undefined;

export function registerErrorHandling(app: FastifyInstance, notFound?: NotFoundFallback): void {
  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof ApiError) {
      return sendError(reply, err);
    }
    const mapped = clientError(err);
    if (mapped) {
      return sendError(reply, mapped);
    }
    if (err instanceof SecretsKeyError) {
      req.log.error({ reqId: req.id }, err.message);
      return sendError(reply, new ApiError(503, MSG.secretsNotConfigured));
    }
    // Postgres unreachable, restarting or shutting down: a connection lost mid-request or none to
    // be had (connectionLost covers both): nothing was committed by this request's failing step,
    // so it is a 503 with Retry-After rather than a 500 (catalog F2).
    if (connectionLost(err)) {
      req.log.warn(
        { code: err.code, detail: err.message, route: req.routeOptions.url, reqId: req.id },
        'store unavailable',
      );
      return sendError(reply, new ApiError(503, MSG.storeUnavailable, undefined, { 'retry-after': '5' }));
    }
    // A deadlock victim or serialization failure that ran out of retries (pool.ts retryConflicts):
    // its statement or transaction committed nothing, and trying again later can succeed.
    if (abortedByConflict(err)) {
      req.log.warn({ code: err.code, route: req.routeOptions.url, reqId: req.id }, 'write conflict');
      return sendError(reply, new ApiError(503, MSG.storeUnavailable, undefined, { 'retry-after': '1' }));
    }
    req.log.error({ err, reqId: req.id }, 'unhandled error');
    return sendError(reply, new ApiError(500, MSG.internalError));
  });
  app.setNotFoundHandler(
    (req, reply) => notFound?.(req, reply) ?? sendError(reply, new ApiError(404, MSG.routeNotFound)),
  );
}
