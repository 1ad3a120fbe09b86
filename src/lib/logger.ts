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

// The MCP endpoint's token is the path segment after /mcp/ (product-notes "MCP": the token is in the
// URL). Masked in any case and after any number of slashes, %-encoded ones too, so a mistyped path
// (a 404) does not log it either.
const MCP_TOKEN_IN_URL = /((?:\/|%2f)mcp(?:\/|%2f)+)[^/?#]+/gi;

type RequestLike = { method?: string; url?: string; host?: string; ip?: string; socket?: { remotePort?: number } };

/**
 * Fastify's own request serializer (it yields to ours), with secrets in the query string, e-mail
 * addresses anywhere in the URL and the MCP token in its path masked.
 */
function serializeRequest(req: RequestLike) {
  return {
    method: req.method,
    url: req.url
      ?.replace(SECRET_QUERY_PARAMS, '$1[redacted]')
      .replace(EMAIL_IN_URL, '[redacted]')
      .replace(MCP_TOKEN_IN_URL, '$1[redacted]'),
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
