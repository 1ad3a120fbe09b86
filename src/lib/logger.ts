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

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { service: 'attribution' } },
    destination ?? process.stdout,
  );
}
