// OpenAPI operations of what the service serves without credentials: campaign links and the
// deep-link verification files on link domains (routes/links), and the operations endpoints
// (routes/ops, openapi.ts). Links answer redirects and HTML, never JSON; README "Link handler".
import { z } from 'zod';
import type { Operation, Response } from './openapi.ts';
import { SERVER_FAILURES } from './openapi-responses.ts';

const linkParam = (what: string) => z.string().optional().meta({ description: what });

// The ad-network parameters a link may carry (domain/links/read-click-params.ts): recorded on the
// click, never used to build the redirect.
const clickParams = {
  utm_source: linkParam('recorded on the click; also passed to the Play Install Referrer'),
  utm_medium: linkParam('recorded on the click; also passed to the Play Install Referrer'),
  utm_campaign: linkParam('recorded on the click; also passed to the Play Install Referrer'),
  utm_term: linkParam('recorded on the click; also passed to the Play Install Referrer'),
  utm_content: linkParam('recorded on the click; also passed to the Play Install Referrer'),
  gclid: linkParam('Google click id'),
  gbraid: linkParam('Google click id (iOS app campaigns)'),
  wbraid: linkParam('Google click id (web to app)'),
  fbclid: linkParam('Meta click id'),
  ttclid: linkParam('TikTok click id'),
  adset_id: linkParam('ad set id (also ad_set_id)'),
  adset_name: linkParam('ad set name (also ad_set_name)'),
  ad_id: linkParam('ad creative id (also creative_id)'),
  ad_name: linkParam('ad creative name (also creative_name)'),
  keyword_id: linkParam('search keyword id'),
  keyword: linkParam('search keyword (also keyword_name)'),
  gaid: linkParam('Android advertising id; kept only when a non-zero UUID'),
  idfa: linkParam('iOS advertising id; kept only when a non-zero UUID'),
  network: linkParam('network code, used when the campaign has no network of its own'),
};

const LINK_RESPONSES: Record<string, Response> = {
  '200': {
    description:
      "HTML page for the in-app browsers of Instagram, Facebook, TikTok, Snapchat, LinkedIn and X on phones: tries the app by its URL scheme, then continues to the store target (the click is counted). Also for a Mac Safari agent, which an iPad in desktop mode sends too, when the campaign's iOS target differs from its desktop target: its script goes to the iOS target on a touch device (an iPad), else to the desktop target",
    html: true,
  },
  '302':
    "redirect (Location) to the campaign's stored target for the visitor's platform; Cache-Control: no-store. A counted click is recorded first (crawlers and HEAD requests are not counted)",
  '404': {
    description:
      'HTML page `Link not found` (unknown host or campaign, deleted campaign, or no stored target for the device); inactive campaigns still redirect',
    html: true,
  },
  ...SERVER_FAILURES,
  '503': `${SERVER_FAILURES['503']}. A prefetch or preview (\`Sec-Purpose: prefetch\`, \`Purpose: prefetch\`, \`X-Purpose: preview\`, \`X-Moz: prefetch\`) gets 503 with no body and Cache-Control: no-store, and is not counted: the browser keeps nothing, so the tap itself reaches the link and is counted`,
};

/**
 * HEAD of a GET operation: the same status and headers without a body. Served for the links, the
 * well-known files and the health checks only (app.ts exposeHeadRoutes: false, each route opts in).
 */
const headOf = (op: Operation, note = ''): Operation => ({
  ...op,
  method: 'head',
  summary: `${op.summary}: HEAD, the same status and headers without a body${note}`,
});
/** A link's HEAD is never counted as a click. */
const linkHeadOf = (op: Operation): Operation => headOf(op, '; no click is recorded');

const wellKnown = (path: string, summary: string, file: z.ZodType): Operation => ({
  method: 'get',
  path: `/.well-known/${path}`,
  summary,
  tag: 'links',
  auth: 'none',
  responses: {
    '200': {
      description: 'the file stored with `projects set-well-known`, as JSON; Cache-Control: public, max-age=300',
      schema: file,
    },
    '404': {
      description: '`{}`: the host is no link domain, or the project has not set this file',
      schema: z.object({}).meta({ maxProperties: 0 }),
    },
    ...SERVER_FAILURES,
  },
});

const linkOps: Operation[] = [
  {
    method: 'get',
    path: '/',
    summary:
      'Open a campaign link (`link` form), on a link domain or the service host; `?c=` on a deeper path (`/promo/summer25?c=<id>`, a path no route serves) is answered alike',
    tag: 'links',
    auth: 'none',
    query: z.object({
      c: z.string().max(64).meta({ description: 'campaign display id' }),
      ...clickParams,
    }),
    responses: LINK_RESPONSES,
  },
  {
    method: 'get',
    path: '/{display_id}',
    summary: 'Open a campaign link (`shareable_link` form); /healthz, /readyz, /docs and /openapi.json win',
    tag: 'links',
    auth: 'none',
    params: z.object({ display_id: z.string().max(64).meta({ description: 'campaign display id' }) }),
    query: z.object(clickParams),
    responses: LINK_RESPONSES,
  },
  {
    method: 'get',
    path: '/{display_id}/',
    summary:
      'The same link with a trailing slash; a fixed route with a slash (/healthz/, /docs/, …) answers 404 `Route not found.`',
    tag: 'links',
    auth: 'none',
    params: z.object({ display_id: z.string().max(64).meta({ description: 'campaign display id' }) }),
    query: z.object(clickParams),
    responses: LINK_RESPONSES,
  },
];

export const LINK_OPERATIONS: Operation[] = [
  ...linkOps.flatMap((op) => [op, linkHeadOf(op)]),
  ...[
    wellKnown(
      'apple-app-site-association',
      "The project's apple-app-site-association (iOS universal links)",
      z.looseObject({}),
    ),
    // A JSON array of statements (set-well-known refuses anything else).
    wellKnown(
      'assetlinks.json',
      "The project's Digital Asset Links file (Android app links)",
      z.array(z.looseObject({})),
    ),
  ].flatMap((op) => [op, headOf(op)]),
];

const check = z.enum(['ok', 'down', 'not configured']);
const readyChecks = z.looseObject({ postgres: check, clickhouse: check, redis: check });

const healthOps: Operation[] = [
  {
    method: 'get',
    path: '/healthz',
    summary: 'Liveness: answers whenever the process does (stores are not checked)',
    tag: 'ops',
    auth: 'none',
    responses: { '200': { description: '{status: "ok"}', schema: z.looseObject({ status: z.literal('ok') }) } },
  },
  {
    method: 'get',
    path: '/readyz',
    summary: 'Readiness: Postgres, ClickHouse and (when configured) Redis answer',
    tag: 'ops',
    auth: 'none',
    responses: {
      '200': {
        description: 'every store answers; redis is "not configured" without REDIS_URL',
        schema: z.looseObject({ status: z.literal('ready'), checks: readyChecks }),
      },
      '503': {
        description: '"down" for each store that does not answer',
        schema: z.looseObject({ status: z.literal('not ready'), checks: readyChecks }),
      },
    },
  },
];

export const OPS_OPERATIONS: Operation[] = [
  // Load balancers and uptime checks may ask with HEAD.
  ...healthOps.flatMap((op) => [op, headOf(op)]),
  {
    method: 'get',
    path: '/openapi.json',
    summary: 'This document (OpenAPI 3.1)',
    tag: 'ops',
    auth: 'none',
    responses: { '200': { description: 'the OpenAPI document', schema: z.looseObject({ openapi: z.string() }) } },
  },
  {
    method: 'get',
    path: '/docs',
    summary: 'A self-contained HTML page describing every operation',
    tag: 'ops',
    auth: 'none',
    responses: { '200': { description: 'HTML', html: true } },
  },
];
