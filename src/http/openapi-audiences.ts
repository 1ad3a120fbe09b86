// /openapi.json entry of GET /api/v1/audiences/export (routes/v1/audiences.ts): the segment's
// parameters from the parser's documentation schema, the CSV answer, and its error texts.
import type { Operation } from './openapi.ts';
import { DATA_401, v1Op } from './openapi-responses.ts';
import { audienceQuerySchema } from './parse/v1/audiences.ts';

export const AUDIENCE_OPERATIONS: Operation[] = [
  v1Op(
    {
      method: 'get',
      path: '/api/v1/audiences/export',
      summary:
        'Audience segment as a CSV file for Meta Custom Audiences or Google Customer Match: registered users who did an event (or a completed payment) in the window, hashed email and phone (SHA-256) and the mobile advertising id; never raw contact data',
      tag: 'audiences',
      query: audienceQuerySchema,
      responses: {
        '200': {
          description:
            'text/csv attachment, streamed, one line per user with a usable identifier (meta: email,phone,madid; google: Email,Phone; google_device_ids: Mobile Device ID; plain: user_id,email_sha256,phone_sha256,madid). HTTP trailers x-audience-rows and x-audience-skipped give the counts; a failure mid-file cuts the response off',
          csv: true,
        },
        '400':
          'event and payment_type both or neither given, unknown payment_type, event over 255 characters, from or to missing or not a calendar date, from after to, format missing or unknown, bad inactive_days / inactive_by / platform / phone_country_code, inactive_by without inactive_days, a repeated parameter',
        '404': '`Campaign not found!`: campaign names no campaign of the project',
        '429':
          '`Rate limit exceeded. Please try again later.`: 1 export per minute per server key (RATE_LIMIT_REPORTING_PER_MINUTE, a budget apart from reporting), or the per-IP limit',
      },
    },
    DATA_401,
  ),
];
