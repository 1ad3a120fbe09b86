// pino JSON logs on stdout. Keys, tokens and personal data are redacted wherever they may appear.
import { type Logger, pino } from 'pino';

export const REDACT_PATHS = [
  'req.headers["service-key"]',
  'req.headers["linkrunner-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["service-key"]',
  'headers["linkrunner-key"]',
  'body.token',
  'token',
  'server_key',
  'serverKey',
  'key',
  '*.token',
  '*.server_key',
  '*.email',
  '*.phone',
  'user_data.email',
  'user_data.phone',
  'body.user_data.email',
  'body.user_data.phone',
];

// A key or token sent in the query string by mistake would otherwise reach every access log line.
const SECRET_QUERY_PARAMS = /([?&](?:service[-_]key|linkrunner[-_]key|server[-_]key|token|key)=)[^&#]*/gi;

// An e-mail address in a path segment or query value (a user id that is an address on
// DELETE /api/v1/users/:user_id, a reporting search), raw or %-encoded.
const EMAIL_IN_URL = /[^/?&=#\s]+(?:@|%40)[^/?&=#\s]+/gi;

type RequestLike = { method?: string; url?: string; host?: string; ip?: string; socket?: { remotePort?: number } };

/**
 * Fastify's own request serializer (it yields to ours), with secrets in the query string and e-mail
 * addresses anywhere in the URL masked.
 */
function serializeRequest(req: RequestLike) {
  return {
    method: req.method,
    url: req.url?.replace(SECRET_QUERY_PARAMS, '$1[redacted]').replace(EMAIL_IN_URL, '[redacted]'),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: { req: serializeRequest },
      base: { service: 'attribution' },
    },
    destination ?? process.stdout,
  );
}
