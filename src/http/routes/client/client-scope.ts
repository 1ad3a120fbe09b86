// The /api/client scope: JSON bodies capped at BODY_LIMIT_CLIENT_BYTES, parsed from the raw bytes
// (kept on the request for SDK signature checks), with __proto__ / constructor keys refused.
import type { FastifyInstance } from 'fastify';
import sjson from 'secure-json-parse';
import type { Deps } from '../../../deps.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';

declare module 'fastify' {
  interface FastifyRequest {
    rawBody: Buffer | null;
  }
}

export function configureClientScope(app: FastifyInstance, deps: Deps): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: deps.config.bodyLimitClient },
    (req, body: Buffer, done) => {
      req.rawBody = body;
      if (body.length === 0) {
        done(null, {});
        return;
      }
      try {
        done(null, sjson.parse(body.toString('utf8'), undefined, { protoAction: 'error', constructorAction: 'error' }));
      } catch {
        done(new ApiError(400, MSG.invalidJsonBody), undefined);
      }
    },
  );
}
