// pino JSON logs on stdout. Keys, tokens and personal data are redacted wherever they may appear.
import { type Logger, pino } from 'pino';

// Credential headers wherever a headers object is logged: at the top, or one level down (a request,
// a response, an outbound call); `Authorization` as outbound calls spell it. The RevenueCat webhook's
// token arrives in `authorization`, and PUT /api/v1/connections/revenuecat answers it as
// `authorization_token`.
const CREDENTIAL_HEADERS = ['["service-key"]', '["linkrunner-key"]', '.authorization', '.Authorization', '.cookie'];

export const REDACT_PATHS = [
  ...['headers', '*.headers'].flatMap((at) => CREDENTIAL_HEADERS.map((h) => `${at}${h}`)),
  'authorization',
  '*.authorization',
  'authorization_token',
  '*.authorization_token',
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
const SECRET_QUERY_PARAMS = /([?&](?:service[-_]key|linkrunner[-_]key|server[-_]key|token|key|authorization)=)[^&#]*/gi;

// Our keys and tokens by their shape, under any parameter name or in any path segment: a server key,
// a RevenueCat or MCP token (prefix and 32 random bytes, base64url) or a project token (24 bytes).
const KEY_OR_TOKEN_IN_URL = /\b(?:(?:sk|rc|mcp)_[\w-]{43}|pt_[\w-]{32})(?![\w-])/g;

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
 * addresses anywhere in the URL, the MCP token in its path and anything shaped as our keys and
 * tokens masked.
 */
function serializeRequest(req: RequestLike) {
  return {
    method: req.method,
    url: req.url
      ?.replace(SECRET_QUERY_PARAMS, '$1[redacted]')
      .replace(EMAIL_IN_URL, '[redacted]')
      .replace(MCP_TOKEN_IN_URL, '$1[redacted]')
      .replace(KEY_OR_TOKEN_IN_URL, '[redacted]'),
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
