// OpenAPI 3.1 at /openapi.json, built from the same zod schemas that parse requests, and a
// self-contained docs page at /docs (no external assets: it works offline).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { skanSchemaSchema } from '../domain/skan/schema.ts';
import { CLIENT_OPERATIONS } from './openapi-client.ts';
import { COMMERCE_OPERATIONS } from './openapi-commerce.ts';
import { LINK_OPERATIONS, OPS_OPERATIONS } from './openapi-links.ts';
import { attributionResultQuerySchema } from './parse/client/schemas.ts';
import { attributedUsersQuerySchema } from './parse/v1/attributed-users.ts';
import {
  createCampaignBodySchema,
  displayIdParamsSchema,
  editCampaignBodySchema,
  listCampaignsQuerySchema,
} from './parse/v1/campaigns.ts';
import { reportQuerySchema } from './parse/v1/reporting.ts';
import { spendBodySchema } from './parse/v1/spend.ts';

export type Operation = {
  method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  path: string;
  summary: string;
  tag: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /**
   * serviceKey (the default): the `service-key` header. bodyToken: client routes, the project token
   * in the JSON body. none: links, well-known files and the operations endpoints.
   */
  auth?: 'serviceKey' | 'bodyToken' | 'none';
  responses: Record<string, string>;
};

const AUTH_401 = (text: string) => `missing or invalid server key: \`${text}\``;
const RATE_429 = '`Rate limit exceeded. Please try again later.` (per source IP or per server key); Retry-After: 1';

// Documentation schemas of the connection bodies: parse/v1/connections.ts reads them field by
// field with the domain's checks (checkMetaConnection, checkMapping), which CLI and API share.
const metaConnectionBodySchema = z.object({
  dataset_id: z
    .union([z.string().regex(/^\d{1,32}$/), z.number().int()])
    .meta({ description: 'numeric id of the Meta dataset (pixel)' }),
  access_token: z
    .string()
    .regex(/^[A-Za-z0-9_-]{20,1024}$/)
    .meta({ description: 'Conversions API access token; stored encrypted under SECRETS_KEY, never answered back' }),
  graph_version: z.string().nullable().optional().meta({ description: 'e.g. v21.0; default META_GRAPH_VERSION' }),
  active: z.boolean().meta({ description: 'only facts recorded while the connection is active are sent' }),
});
const mappingsBodySchema = z.object({
  mappings: z
    .array(
      z.object({
        kind: z.enum(['event', 'payment']),
        name: z.string().min(1).max(256).meta({ description: 'an event name, or a payment type (FIRST_PAYMENT, …)' }),
        to: z
          .enum(['AddToCart', 'ViewContent', 'Purchase'])
          .meta({ description: 'events map to AddToCart or ViewContent; payment types to Purchase' }),
      }),
    )
    .min(1)
    .max(100),
});

export const OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/api/v1/campaigns',
    summary: 'List campaigns',
    tag: 'campaigns',
    query: listCampaignsQuerySchema,
    responses: {
      '200': '{msg, status, data: {total_campaigns, campaigns, pagination}}',
      '400': 'invalid filter, link, domain or channel',
      '401': AUTH_401('Unauthorized access.'),
      '422': 'invalid page or limit',
      '429': RATE_429,
    },
  },
  {
    method: 'get',
    path: '/api/v1/attributed-users',
    summary: "List a campaign's attributed users",
    tag: 'users',
    query: attributedUsersQuerySchema,
    responses: {
      '200': '{msg, status, data: {total_users, users, pagination}}; a start after the end gives no users',
      '400': '`Invalid timezone format.` or `Invalid timestamp format.`',
      '401': AUTH_401('Authentication failed.'),
      '404': '`Resource not found.` (no such campaign in the project)',
      '422': '`Required parameter missing.` (display_id), invalid page or limit',
      '429': RATE_429,
    },
  },
  {
    method: 'post',
    path: '/api/v1/create-campaign',
    summary: 'Create a campaign',
    tag: 'campaigns',
    body: createCampaignBodySchema,
    responses: {
      '201': '{msg, status, data: created campaign}',
      '400': 'invalid field, unknown domain or store listing',
      '401': AUTH_401('Server key missing!` or `Server key invalid!'),
      '429': RATE_429,
    },
  },
  ...(['patch', 'put'] as const).map(
    (method): Operation => ({
      method,
      path: '/api/v1/campaigns/{display_id}',
      summary: method === 'patch' ? 'Edit a campaign' : 'Edit a campaign (PUT alias of PATCH)',
      tag: 'campaigns',
      params: displayIdParamsSchema,
      body: editCampaignBodySchema,
      responses: {
        '200': '{msg, status, data: campaign summary}',
        '400': 'missing display id, no field, blank name, non-boolean active',
        '401': AUTH_401('Server key missing!` or `Server key invalid!'),
        '404': '`Campaign not found!`',
        '429': RATE_429,
      },
    }),
  ),
  {
    method: 'delete',
    path: '/api/v1/campaigns/{display_id}',
    summary: 'Delete a campaign',
    tag: 'campaigns',
    params: displayIdParamsSchema,
    responses: {
      '204': 'deleted; empty body',
      '400': '`Campaign display ID is required!`',
      '401': AUTH_401('Server key missing!` or `Server key invalid!'),
      '404': '`Campaign not found!`',
      '429': RATE_429,
    },
  },
  {
    method: 'delete',
    path: '/api/v1/users/{user_id}',
    summary:
      "Delete one user's data (GDPR): Postgres, ClickHouse raw and derived tables, caches; reports what was removed",
    tag: 'users',
    params: z.object({ user_id: z.string().min(1).max(256) }),
    responses: {
      '200': '`User data deleted successfully!`; data: removed rows per store',
      '400': '`User ID is required!`',
      '401': AUTH_401('Server key missing!` or `Server key invalid!'),
      '404': "`User not found!` (also for another project's user)",
      '429': RATE_429,
    },
  },
  {
    method: 'get',
    path: '/api/v1/reporting/campaigns',
    summary: 'Campaign analytics for a window (formatted strings; README "Reporting" defines every field)',
    tag: 'reporting',
    query: reportQuerySchema,
    responses: {
      '200':
        '{msg, status, data: {campaigns, pagination, display_currency, view}}; identical queries may be served from a 60 s cache',
      '400':
        'invalid date, from after to, unknown active / platform / view / sort_field / sort_order, bad meta_account_id or active_users, too many event names',
      '401': AUTH_401('Unauthorized access.'),
      '402': 'billing suspended: {msg, status, payment_link}',
      '422': 'invalid page or limit (1 to 100)',
      '429': 'rate limit exceeded (1 request per minute per server key); header Retry-After: 60',
    },
  },
  {
    method: 'get',
    path: '/api/v1/get-attribution-result',
    summary: "Attribution of a user's or a device's install (with the decision record in `match`)",
    tag: 'attribution',
    query: attributionResultQuerySchema,
    responses: {
      '200': '{msg, status, data: attribution result + match}',
      '204': 'no attribution data (empty body)',
      '400': '`Either device_identifier or user_id is required.`',
      '401': AUTH_401('Unauthorized access.'),
      '429': RATE_429,
    },
  },
  ...(['put', 'post'] as const).map(
    (method): Operation => ({
      method,
      path: '/api/v1/spend',
      summary:
        method === 'put'
          ? 'Upsert ad spend rows (a restatement replaces the day and key)'
          : 'Upsert ad spend rows (POST alias of PUT)',
      tag: 'spend',
      body: spendBodySchema,
      responses: {
        '200': '{msg, status, data: {accepted, unchanged, rejected: [{index, reason}]}}; rejected rows are skipped',
        '400': '`rows must be an array of 1 to 10,000 spend rows.` or a body that is not a JSON object',
        '401': AUTH_401('Server key missing!` or `Server key invalid!'),
        '429': RATE_429,
      },
    }),
  ),
  {
    method: 'put',
    path: '/api/v1/connections/meta',
    summary: 'Connect the project to its Meta dataset (Conversions API); only facts after activation are sent',
    tag: 'connections',
    body: metaConnectionBodySchema,
    responses: {
      '200':
        '{msg: `Meta connection saved.`, status, data: {dataset_id, graph_version, active, activated_at, token_fingerprint}}',
      '400': '`Invalid connection: <problem>`',
      '401': AUTH_401('Server key missing!` or `Server key invalid!'),
      '429': RATE_429,
    },
  },
  {
    method: 'put',
    path: '/api/v1/connections/meta/mappings',
    summary: 'Map event names to AddToCart or ViewContent and payment types to Purchase',
    tag: 'connections',
    body: mappingsBodySchema,
    responses: {
      '200':
        '{msg: `<n> event mapping(s) saved.`, status, data: {mappings: [{kind, name, to}]}}: every mapping of the project',
      '400':
        '`mappings must be an array of 1 to 100 objects {kind, name, to}.` or `Invalid mapping at index <i>: <problem>`',
      '401': AUTH_401('Server key missing!` or `Server key invalid!'),
      '429': RATE_429,
    },
  },
  {
    method: 'put',
    path: '/api/v1/skan/schema',
    summary: 'Store a SKAN 4 conversion schema as the project\'s next version (README "SKAdNetwork")',
    tag: 'skan',
    body: skanSchemaSchema,
    responses: {
      '201': '{msg, status, data: {version, created_at, schema}}',
      '400': '`Invalid SKAN schema: <path>: <problem>`',
      '401': AUTH_401('Server key missing!` or `Server key invalid!'),
      '429': RATE_429,
    },
  },
  {
    method: 'get',
    path: '/api/v1/skan/schema',
    summary: "The project's current (highest version) SKAN conversion schema",
    tag: 'skan',
    responses: {
      '200': '{msg, status, data: {version, created_at, schema}}',
      '401': AUTH_401('Server key missing!` or `Server key invalid!'),
      '404': '`No SKAN schema is set for this project.`',
      '429': RATE_429,
    },
  },
  ...CLIENT_OPERATIONS,
  ...COMMERCE_OPERATIONS,
  ...LINK_OPERATIONS,
  ...OPS_OPERATIONS,
];

const toJson = (s: z.ZodType) => z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;

function parameters(schema: z.ZodObject | undefined, where: 'query' | 'path') {
  if (!schema) {
    return [];
  }
  const json = toJson(schema) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || (json.required ?? []).includes(name),
    schema: s,
  }));
}

export function buildOpenApi(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    paths[op.path] ??= {};
    const entry = paths[op.path] as Record<string, unknown>;
    entry[op.method] = {
      summary: op.summary,
      tags: [op.tag],
      security: (op.auth ?? 'serviceKey') === 'serviceKey' ? [{ serviceKey: [] }] : [],
      parameters: [...parameters(op.params, 'path'), ...parameters(op.query, 'query')],
      ...(op.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: toJson(op.body) } } } }
        : {}),
      responses: Object.fromEntries(Object.entries(op.responses).map(([code, description]) => [code, { description }])),
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Attribution service API', version: '1' },
    components: {
      securitySchemes: {
        serviceKey: {
          type: 'apiKey',
          in: 'header',
          name: 'service-key',
          description: '`linkrunner-key` is accepted too',
        },
      },
    },
    paths,
  };
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

const AUTH_LABEL: Record<NonNullable<Operation['auth']>, string> = {
  serviceKey: '<code>service-key</code> header',
  bodyToken: '<code>token</code> in the JSON body',
  none: 'none',
};

function docsPage(doc: Record<string, unknown>): string {
  const sections = OPERATIONS.map((op) => {
    const params = [...parameters(op.params, 'path'), ...parameters(op.query, 'query')]
      .map((p) => `<li><code>${escapeHtml(p.name)}</code> (${p.in})</li>`)
      .join('');
    const body = op.body ? `<pre>${escapeHtml(JSON.stringify(toJson(op.body), null, 2))}</pre>` : '';
    const responses = Object.entries(op.responses)
      .map(([c, d]) => `<li><b>${c}</b> ${escapeHtml(d)}</li>`)
      .join('');
    return `<section><h2>${op.method.toUpperCase()} ${escapeHtml(op.path)}</h2><p>${escapeHtml(op.summary)}</p>
      <p>Auth: ${AUTH_LABEL[op.auth ?? 'serviceKey']}</p>${params ? `<h3>Parameters</h3><ul>${params}</ul>` : ''}${body ? `<h3>Body</h3>${body}` : ''}
      <h3>Responses</h3><ul>${responses}</ul></section>`;
  }).join('\n');
  const info = doc.info as { title: string };
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(info.title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}pre{background:#f4f4f4;padding:.5rem;overflow:auto}section{border-top:1px solid #ddd}</style>
</head><body><h1>${escapeHtml(info.title)}</h1><p>Machine-readable: <a href="/openapi.json">/openapi.json</a>.
<code>/api/v1</code> takes the server key in the <code>service-key</code> header; <code>/api/client</code> takes the
project token in the JSON body; links, well-known files and operations endpoints take nothing.</p>${sections}</body></html>`;
}

export function registerDocsRoutes(app: FastifyInstance): void {
  const doc = buildOpenApi();
  const page = docsPage(doc);
  app.get('/openapi.json', async () => doc);
  app.get('/docs', async (_req, reply) => reply.type('text/html; charset=utf-8').send(page));
}
