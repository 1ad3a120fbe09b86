// OpenAPI operations of the Web SDK collector (@linkrunner/web): POST /web/ingest (and /web/collect,
// where older cached bundles post) with the project token in the body, and their CORS preflights.
// The body schema documents what the SDK sends (README "Web SDK"); parse-ingest.ts reads it
// tolerantly: text may be a number, numbers their text, fields we do not know are ignored.
import { z } from 'zod';
import {
  WEB_ATTRIBUTION_FIELDS,
  WEB_ATTRIBUTION_MAX,
  WEB_NUMBER_FIELDS,
  WEB_TEXT_FIELDS,
} from '../domain/web/web-event.ts';
import type { Operation } from './openapi.ts';
import { envelope, messageData, SERVER_FAILURES, UNSUPPORTED_MEDIA_TYPE } from './openapi-responses.ts';
import { WEB_INGEST_PATHS } from './routes/web/web.ts';

const text = (max: number) =>
  z
    .union([z.string(), z.number(), z.boolean(), z.null()])
    .optional()
    .meta({ description: `cut at ${max} characters; a number or boolean is kept as its text; absent or null: ""` });
const number = z
  .union([z.number(), z.string(), z.boolean(), z.null()])
  .optional()
  .meta({ description: 'a number (or its text), clamped to the column range; absent, null or "": 0' });

const webEventBody = z.looseObject({
  token: z.string().meta({ description: 'the project token (the same one the app SDKs send)' }),
  event_type: z
    .string()
    .meta({ description: 'page_view, custom or identify (any other type is kept): 1 to 64 characters' }),
  event_id: z
    .union([z.string().max(128), z.number(), z.null()])
    .optional()
    .meta({ description: 'the SDK UUID of the event: a second event with it is not stored' }),
  client_timestamp: z
    .union([z.string(), z.number(), z.null()])
    .optional()
    .meta({ description: 'the browser clock, ISO 8601 (or epoch ms); kept as client_ts' }),
  ...Object.fromEntries(Object.entries(WEB_TEXT_FIELDS).map(([k, max]) => [k, text(max)])),
  ...Object.fromEntries(WEB_ATTRIBUTION_FIELDS.map((k) => [k, text(WEB_ATTRIBUTION_MAX)])),
  ...Object.fromEntries(Object.keys(WEB_NUMBER_FIELDS).map((k) => [k, number])),
});

const CORS =
  "Every answer names the page's origin: Access-Control-Allow-Origin: <Origin> with Access-Control-Allow-Credentials: true and Vary: Origin (* when no Origin is sent).";

function ingestOp(path: string): Operation {
  return {
    method: 'post',
    path,
    summary: `Record a Web SDK event (page view, custom event, identify): application/json or text/plain holding JSON. ${CORS}`,
    tag: 'web',
    auth: 'bodyToken',
    body: webEventBody,
    responses: {
      '200': {
        description:
          '`Web event captured successfully` (stored) or `Web event already captured: duplicate event_id ignored.`',
        schema: envelope(messageData()),
      },
      '400':
        '`Invalid JSON body.`, `Request body must be a JSON object.`, `event_type must be a non-empty string of at most 64 characters.`, `event_id must be a string or number of at most 128 characters.`, `<field> must be a string.`, `<field> must be a number.`, or an encrypted (lrv) body: this server holds no key to open it',
      '401': '`Invalid or missing project token.`',
      '413': '`Request body too large.` (over BODY_LIMIT_CLIENT_BYTES, 64 KiB by default)',
      '415': UNSUPPORTED_MEDIA_TYPE.replace('Send application/json.', 'Send application/json.` (or text/plain)'),
      '429':
        '`Rate limit exceeded. Please try again later.`: more than RATE_LIMIT_CLIENT_PER_SECOND web events per second for this token; Retry-After: 1',
      '500': SERVER_FAILURES['500'],
      '503': `\`Too much data is waiting to be stored. Please retry later.\`: the fact backlog is over FACT_BACKLOG_MAX_ROWS; Retry-After: 30. ${SERVER_FAILURES['503']}`,
    },
  };
}

function preflightOp(path: string): Operation {
  return {
    method: 'options',
    path,
    summary: `CORS preflight of ${path}: POST from any origin, with the request headers the page asks for`,
    tag: 'web',
    auth: 'none',
    responses: {
      '204':
        'Access-Control-Allow-Origin: <Origin> (or *), Access-Control-Allow-Credentials: true, Vary: Origin, Access-Control-Allow-Methods: POST, OPTIONS',
    },
  };
}

export const WEB_OPERATIONS: Operation[] = WEB_INGEST_PATHS.flatMap((p) => [ingestOp(p), preflightOp(p)]);
