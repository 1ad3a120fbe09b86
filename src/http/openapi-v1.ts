// OpenAPI operations of the /api/v1 routes with the server key: users, reporting, attribution
// result, spend, connections and the SKAN schema (campaigns: openapi-campaigns.ts; the capture
// twins: openapi-commerce.ts). Request schemas come from http/parse (the SKAN schema parses
// requests; the others are documentation schemas beside the parsers).
import { z } from 'zod';
import { PAYMENT_TYPES } from '../domain/events/capture-payment.ts';
import { skanSchemaSchema } from '../domain/skan/schema.ts';
import type { Operation } from './openapi.ts';
import { CAMPAIGN_OPERATIONS } from './openapi-campaigns.ts';
import {
  attributedUserSchema,
  attributionResultSchema,
  CRUD_401,
  DATA_401,
  envelope,
  paginationSchema,
  reportDataSchema,
  skanSchemaAnswer,
  userDeletionSchema,
  v1Op,
} from './openapi-responses.ts';
import { attributionResultQuerySchema } from './parse/client/schemas.ts';
import { NOT_BLANK } from './parse/doc-patterns.ts';
import { attributedUsersQuerySchema } from './parse/v1/attributed-users.ts';
import { reportQuerySchema } from './parse/v1/reporting.ts';
import { spendBodySchema } from './parse/v1/spend.ts';

// Documentation schemas of the connection bodies: parse/v1/connections.ts reads them field by
// field with the domain's checks (checkMetaConnection, checkMapping), which CLI and API share.
const metaConnectionBodySchema = z.object({
  dataset_id: z.union([z.string().regex(/^\s*\d{1,32}\s*$/), z.int().min(0)]).meta({
    description:
      'numeric id of the Meta dataset (pixel): 1 to 32 digits (trimmed), or a whole number up to 2^53 - 1 (a longer id as a string)',
  }),
  access_token: z
    .string()
    .regex(/^\s*[A-Za-z0-9_-]{20,1024}\s*$/)
    .meta({
      description:
        'Conversions API access token, 20 to 1024 letters, digits, _ or - (trimmed); stored encrypted under SECRETS_KEY, never answered back',
    }),
  graph_version: z
    .string()
    .regex(/^v\d+\.\d+$/)
    .nullable()
    .optional()
    .meta({ description: 'e.g. v21.0; default META_GRAPH_VERSION' }),
  active: z.boolean().meta({ description: 'only facts recorded while the connection is active are sent' }),
});
// parseUserIdParam drops NUL, then wants an id: a NUL-only id is refused.
const NOT_ONLY_NUL = '[^\\u0000]';
const mappingSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('event'),
    name: z.string().max(256).regex(new RegExp(NOT_BLANK)).meta({
      description: 'an event name: NUL dropped (as capture-event stores names), then 1 to 256 characters, not blank',
    }),
    to: z.enum(['AddToCart', 'ViewContent']),
  }),
  z.object({ kind: z.literal('payment'), name: z.enum(PAYMENT_TYPES), to: z.literal('Purchase') }),
]);
const mappingsBodySchema = z.object({
  mappings: z
    .array(mappingSchema)
    .min(1)
    .max(100)
    .meta({ description: 'events map to AddToCart or ViewContent; payment types to Purchase' }),
});

export const V1_OPERATIONS: Operation[] = [
  ...CAMPAIGN_OPERATIONS,
  v1Op(
    {
      method: 'get',
      path: '/api/v1/attributed-users',
      summary: "List a campaign's attributed users",
      tag: 'users',
      query: attributedUsersQuerySchema,
      responses: {
        '200': {
          description: 'a start after the end gives no users',
          schema: envelope(
            z.object({
              total_users: z.int().min(0),
              users: z.array(attributedUserSchema),
              pagination: paginationSchema,
            }),
          ),
        },
        '400': '`Invalid timezone format.` or `Invalid timestamp format.`',
        '404': '`Resource not found.` (no such campaign in the project)',
        '422': '`Required parameter missing.` (display_id), invalid page or limit',
      },
    },
    'Authentication failed.',
  ),
  v1Op(
    {
      method: 'delete',
      path: '/api/v1/users/{user_id}',
      summary:
        "Delete one user's data (GDPR): Postgres, ClickHouse raw and derived tables, caches; reports what was removed",
      tag: 'users',
      params: z.object({
        user_id: z
          .string()
          .max(256)
          .regex(new RegExp(NOT_ONLY_NUL))
          .meta({ description: 'your user id: at most 256 characters, NUL dropped (not only NUL)' }),
      }),
      responses: {
        '200': { description: '`User data deleted successfully!`', schema: envelope(userDeletionSchema) },
        '400': '`User ID is required!`',
        '404': "`User not found!` (also for another project's user)",
      },
    },
    CRUD_401,
  ),
  v1Op(
    {
      method: 'get',
      path: '/api/v1/reporting/campaigns',
      summary: 'Campaign analytics for a window (formatted strings; README "Reporting" defines every field)',
      tag: 'reporting',
      query: reportQuerySchema,
      responses: {
        '200': {
          description: '`Campaigns fetched successfully`; identical queries may be served from a 60 s cache',
          schema: envelope(reportDataSchema),
        },
        '400':
          'invalid date, from after to, unknown active / platform / view / sort_field / sort_order, bad meta_account_id, active_users or search, too many event names, a repeated parameter',
        '402': {
          description: 'billing suspended: {msg, status, payment_link}',
          schema: z.object({ msg: z.string(), status: z.literal(402), payment_link: z.string().nullable() }),
        },
        '422': 'invalid page or limit (1 to 100)',
        '429':
          '`Rate limit exceeded. Please try again later.`: 1 request per minute per server key, or the per-IP limit; Retry-After: 60',
      },
    },
    DATA_401,
  ),
  v1Op(
    {
      method: 'get',
      path: '/api/v1/get-attribution-result',
      summary: "Attribution of a user's or a device's install (with the decision record in `match`)",
      tag: 'attribution',
      query: attributionResultQuerySchema,
      responses: {
        '200': { description: '`Attribution result fetched successfully`', schema: envelope(attributionResultSchema) },
        '204': 'no attribution data (empty body)',
        '400': '`Either device_identifier or user_id is required.`',
      },
    },
    DATA_401,
  ),
  ...(['put', 'post'] as const).map((method) =>
    v1Op(
      {
        method,
        path: '/api/v1/spend',
        summary:
          method === 'put'
            ? 'Upsert ad spend rows (a restatement replaces the day and key)'
            : 'Upsert ad spend rows (POST alias of PUT)',
        tag: 'spend',
        body: spendBodySchema,
        responses: {
          '200': {
            description: '`Spend saved: <a> accepted, <u> unchanged, <r> rejected.`; rejected rows are skipped',
            schema: envelope(
              z.looseObject({
                accepted: z.int().min(0),
                unchanged: z.int().min(0),
                rejected: z.array(z.object({ index: z.int().min(0), reason: z.string() })),
              }),
            ),
          },
          '400': '`rows must be an array of 1 to 10,000 spend rows.` or a body that is not a JSON object',
        },
      },
      CRUD_401,
      { bodyLimit: '8 MiB' },
    ),
  ),
  v1Op(
    {
      method: 'put',
      path: '/api/v1/connections/meta',
      summary: 'Connect the project to its Meta dataset (Conversions API); only facts after activation are sent',
      tag: 'connections',
      body: metaConnectionBodySchema,
      responses: {
        '200': {
          description: '`Meta connection saved.`',
          schema: envelope(
            z.looseObject({
              dataset_id: z.string(),
              graph_version: z.string().nullable(),
              active: z.boolean(),
              activated_at: z.string().nullable(),
              token_fingerprint: z.string(),
            }),
          ),
        },
        '400': '`Invalid connection: <problem>`',
        '503':
          '`Secrets are not configured on this server (SECRETS_KEY). Ask its operator.` (service mode without SECRETS_KEY), or `Service temporarily unavailable. Please retry later.` (Postgres unreachable or restarting)',
      },
    },
    CRUD_401,
  ),
  v1Op(
    {
      method: 'put',
      path: '/api/v1/connections/meta/mappings',
      summary: 'Map event names to AddToCart or ViewContent and payment types to Purchase',
      tag: 'connections',
      body: mappingsBodySchema,
      responses: {
        '200': {
          description: '`<n> event mapping(s) saved.`; data.mappings: every mapping of the project',
          schema: envelope(
            z.looseObject({ mappings: z.array(z.object({ kind: z.string(), name: z.string(), to: z.string() })) }),
          ),
        },
        '400':
          '`mappings must be an array of 1 to 100 objects {kind, name, to}.` or `Invalid mapping at index <i>: <problem>`',
      },
    },
    CRUD_401,
  ),
  v1Op(
    {
      method: 'put',
      path: '/api/v1/skan/schema',
      summary: 'Store a SKAN 4 conversion schema as the project\'s next version (README "SKAdNetwork")',
      tag: 'skan',
      body: skanSchemaSchema.meta({
        description:
          'rules of fine / coarse / lock values. Checks JSON Schema cannot state: in an amount range, min must be below max; an event name is 1 to 255 characters and not blank',
      }),
      responses: {
        '201': { description: '`SKAN schema saved as version <n>.`', schema: envelope(skanSchemaAnswer) },
        '400': '`Invalid SKAN schema: <path>: <problem>`',
      },
    },
    CRUD_401,
  ),
  v1Op(
    {
      method: 'get',
      path: '/api/v1/skan/schema',
      summary: "The project's current (highest version) SKAN conversion schema",
      tag: 'skan',
      responses: {
        '200': { description: '`SKAN schema found.`', schema: envelope(skanSchemaAnswer) },
        '404': '`No SKAN schema is set for this project.`',
      },
    },
    CRUD_401,
  ),
];
