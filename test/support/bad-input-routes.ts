// Every route the app serves, with a valid base request (built on one fixture project) and the set
// of statuses it may answer, written down from api-spec.md, real-clients.md, the OpenAPI responses
// (src/http/openapi*.ts) and the code. Rate limits are off in this suite (their own tests turn them
// on), so 429 is not allowed here; 503 is allowed only where it is the documented answer (/readyz).
// The MCP server and the RevenueCat webhook, which carry credentials of their own, are listed in
// bad-input-surfaces.ts.
import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import {
  ANALYTICS_CONNECTION_ROUTES,
  CONNECTION_ROUTES,
  connectRevenueCat,
  issueMcpToken,
  MCP_ROUTES,
  WEB_ROUTES,
  WEBHOOK_ROUTES,
} from './bad-input-surfaces.ts';
import { attribute, init, useClientHarness } from './client.ts';
import { signUp } from './commerce.ts';
import * as f from './factories.ts';
import { type Harness, newProject, type TestProject } from './harness.ts';

export type Fixture = {
  p: TestProject;
  iid: string;
  userId: string;
  displayId: string;
  domain: string;
  listingIds: string[];
  /** An MCP token of p, issued as `mcp create-token` does. */
  mcpToken: string;
  /** p's RevenueCat webhook token. */
  rcToken: string;
  /** A second project, connected to RevenueCat: the connection routes rotate and remove its token, never p's. */
  spare: TestProject;
};

/**
 * The suite's harness: rate limits off (they have their own tests), and a SECRETS_KEY, without
 * which a valid PUT /connections/meta is a 500 in service mode (configuration, not input).
 */
export const useBadInputHarness = (): (() => Harness) => useClientHarness({ SECRETS_KEY: 'cd'.repeat(32) });

/**
 * A project with a domain, two listings, a campaign, an initialised install whose user signed up,
 * an MCP token and a RevenueCat connection; and a spare project for the connection routes.
 */
export async function makeFixture(h: Harness): Promise<Fixture> {
  const p = await newProject(h.deps);
  const domain = await f.domain(h.deps, p, { primary: true });
  const ios = await f.storeListing(h.deps, p, 'IOS');
  const android = await f.storeListing(h.deps, p, 'ANDROID');
  const c = await f.campaign(h.app, p, { name: 'Fixture', store_listing_ids: [ios.id, android.id] });
  const iid = randomUUID();
  const res = await init(h, p.token, { install_instance_id: iid });
  if (res.statusCode !== 202) {
    throw new Error(`init answered ${res.statusCode}`);
  }
  await attribute(h, p, iid);
  const userId = 'bad-input-user';
  await signUp(h, p, iid, userId);
  const spare = await newProject(h.deps);
  await connectRevenueCat(h, spare);
  return {
    p,
    iid,
    userId,
    displayId: c.display_id,
    domain: domain.name,
    listingIds: [ios.id, android.id],
    mcpToken: await issueMcpToken(h, p),
    rcToken: await connectRevenueCat(h, p),
    spare,
  };
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type Route = {
  name: string;
  method: Method;
  /** The path; `:param` segments are filled by `params`. */
  path: string;
  /** mcpToken: in the path; revenueCatToken: in Authorization. */
  auth: 'serviceKey' | 'token' | 'mcpToken' | 'revenueCatToken' | 'none';
  allowed: readonly number[];
  body?: (x: Fixture) => Record<string, unknown>;
  query?: (x: Fixture) => Record<string, string>;
  params?: (x: Fixture) => Record<string, string>;
  headers?: Record<string, string>;
  /** The credential headers, when not p's server key (serviceKey) or none. */
  credentials?: (x: Fixture) => Record<string, string>;
};

// Answers every body route can give before its handler: unreadable or non-object JSON (400),
// over the body cap (413), not JSON (415).
const BODY = [400, 413, 415] as const;
// Client routes (openapi-client CLIENT_ERRORS): 401 only from SDK signing, which is not enforced
// here, so 401 stays out except on attribution-data, where a bad token is 401 (spec).
const CLIENT = [...BODY] as const;

const client = (
  path: string,
  ok: number[],
  body: (x: Fixture) => Record<string, unknown>,
  extra: number[] = [],
): Route => ({
  name: `POST /api/client/${path}`,
  method: 'POST',
  path: `/api/client/${path}`,
  auth: 'token',
  allowed: [...ok, ...CLIENT, ...extra],
  body: (x) => ({ token: x.p.token, platform: 'ANDROID', install_instance_id: x.iid, ...body(x) }),
});

export const CLIENT_ROUTES: Route[] = [
  client('init', [202], () => ({
    device_data: { gaid: randomUUID(), install_ref: 'utm_source=google-play', system_version: '14' },
    app_version: '1.0',
    package_version: '4.0.1',
    link: 'https://attr.test/promo',
    debug: false,
    source: 'GENERAL',
  })),
  client('attribution-data', [200], () => ({ device_data: { install_ref: 'utm_source=x' }, debug: true }), [401]),
  client('handle-deeplink', [200], () => ({
    deeplink_url: 'https://attr.test/promo?c=abc',
    device_data: { gaid: 'g' },
    meta_install_referrer: { campaign_group_id: '1' },
    timestamp: 1732222222000,
  })),
  client('trigger', [200], (x) => ({
    user_data: { id: x.userId, name: 'N', email: 'a@b.c', phone: '+1', is_first_time_user: true },
    data: { device_data: { gaid: 'g' }, extra: 1 },
    customer_created_at: '2024-01-01T00:00:00Z',
    is_first_time_customer: false,
    event: 'SIGNUP',
  })),
  client('set-user-data', [200], (x) => ({ user_data: { id: x.userId, name: 'N' }, device_data: { a: 1 } })),
  client('customer-user-id', [200], (x) => ({ user_id: x.userId })),
  client('capture-event', [200], (x) => ({
    event_name: 'add_to_cart',
    event_data: { amount: 12.5, currency: 'USD', contents: [{ id: 'a', quantity: 1, item_price: 12.5 }] },
    user_id: x.userId,
    event_id: 'evt-1',
    device_data: {},
    time_since_app_install: 1.5,
  })),
  client('capture-payment', [200, 201], (x) => ({
    amount: 9.99,
    user_id: x.userId,
    payment_id: 'pay-1',
    type: 'DEFAULT',
    status: 'PAYMENT_COMPLETED',
    event_data: { currency: 'USD' },
    data: { device_data: {} },
  })),
  client('remove-captured-payment', [200], (x) => ({ payment_id: 'pay-1', user_id: x.userId })),
  client('update-push-token', [200], () => ({ push_token: 'ab'.repeat(32) })),
  client('updatePushToken', [200], () => ({ push_token: 'ab'.repeat(32) })),
  client('integrations', [200], () => ({ integration_info: { clevertap_id: 'ct-1' } })),
];

const v1 = (r: Omit<Route, 'auth' | 'path'> & { path: string }): Route => ({ ...r, auth: 'serviceKey' });

// /api/v1 (openapi.ts, openapi-commerce.ts): 401 is each family's auth text; the fuzz always sends
// a valid key, so a 401 here would be a finding too, but it is documented, hence allowed.
export const V1_ROUTES: Route[] = [
  v1({
    name: 'GET /api/v1/campaigns',
    method: 'GET',
    path: '/api/v1/campaigns',
    allowed: [200, 400, 401, 422],
    query: (x) => ({ filter: 'ALL', channel: 'META', domain: x.domain, page: '1', limit: '10' }),
  }),
  v1({
    name: 'GET /api/v1/attributed-users',
    method: 'GET',
    path: '/api/v1/attributed-users',
    allowed: [200, 400, 401, 404, 422],
    query: (x) => ({
      display_id: x.displayId,
      start_timestamp: '2024-01-01T00:00:00.000',
      end_timestamp: '2030-01-01T00:00:00.000',
      timezone: 'Asia/Kolkata',
      page: '1',
      limit: '50',
    }),
  }),
  v1({
    name: 'GET /api/v1/get-attribution-result',
    method: 'GET',
    path: '/api/v1/get-attribution-result',
    allowed: [200, 204, 400, 401],
    query: (x) => ({ user_id: x.userId, device_identifier: randomUUID() }),
  }),
  v1({
    name: 'POST /api/v1/create-campaign',
    method: 'POST',
    path: '/api/v1/create-campaign',
    allowed: [201, 401, ...BODY],
    body: (x) => ({
      name: 'Fuzz',
      deeplink: 'myapp://promo',
      link_for_desktop_users: 'https://example.com/desktop',
      android_web_redirect: 'https://example.com/android',
      ios_web_redirect: 'https://example.com/ios',
      is_shortlink: false,
      domain: x.domain,
      store_listing_ids: x.listingIds,
      ad_network: 'sandbox ads',
    }),
  }),
  ...(['PATCH', 'PUT'] as const).map((method) =>
    v1({
      name: `${method} /api/v1/campaigns/:display_id`,
      method,
      path: '/api/v1/campaigns/:display_id',
      allowed: [200, 401, 404, ...BODY],
      params: (x) => ({ display_id: x.displayId }),
      body: () => ({ name: 'Renamed', active: true }),
    }),
  ),
  v1({
    name: 'DELETE /api/v1/campaigns/:display_id',
    method: 'DELETE',
    path: '/api/v1/campaigns/:display_id',
    allowed: [204, 400, 401, 404, 413, 415],
    // Never the fixture's campaign: the fuzz only ever deletes ids that do not exist.
    params: () => ({ display_id: `gone-${randomUUID().slice(0, 8)}` }),
  }),
  v1({
    name: 'DELETE /api/v1/users/:user_id',
    method: 'DELETE',
    path: '/api/v1/users/:user_id',
    allowed: [200, 400, 401, 404, 413, 415],
    params: () => ({ user_id: `nobody-${randomUUID().slice(0, 8)}` }),
  }),
  v1({
    name: 'GET /api/v1/reporting/campaigns',
    method: 'GET',
    path: '/api/v1/reporting/campaigns',
    allowed: [200, 400, 401, 402, 422],
    query: () => ({
      from: '2024-01-01',
      to: '2024-12-31',
      active: 'true',
      network: 'meta',
      platform: 'android',
      search: 'Fix',
      view: 'user_acquisition',
      sort_field: 'installs',
      sort_order: 'descending',
      page: '1',
      limit: '10',
      events: 'add_to_cart,__proto__',
      payment_events: 'DEFAULT',
      unique_user_events: 'add_to_cart',
      cost_per_event: 'DEFAULT',
      active_users: '7',
    }),
  }),
  ...(['PUT', 'POST'] as const).map((method) =>
    v1({
      name: `${method} /api/v1/spend`,
      method,
      path: '/api/v1/spend',
      allowed: [200, 401, ...BODY],
      body: (x) => ({
        rows: [
          {
            day: '2025-03-01',
            campaign_display_id: x.displayId,
            ad_set_id: 'as1',
            ad_set_name: 'Set 1',
            amount: 12.5,
            impressions: 1000,
            clicks: '25',
            network: 'sandbox ads',
          },
        ],
      }),
    }),
  ),
  v1({
    name: 'POST /api/v1/capture-event',
    method: 'POST',
    path: '/api/v1/capture-event',
    allowed: [200, 201, 401, ...BODY],
    body: (x) => ({ event_name: 'purchase', event_data: { amount: 3 }, user_id: x.userId, event_id: 'srv-1' }),
  }),
  v1({
    name: 'POST /api/v1/capture-payment',
    method: 'POST',
    path: '/api/v1/capture-payment',
    allowed: [200, 201, 401, ...BODY],
    body: (x) => ({
      user_id: x.userId,
      payment_id: 'srv-pay-1',
      amount: 5,
      type: 'ONE_TIME',
      status: 'PAYMENT_COMPLETED',
    }),
  }),
  v1({
    name: 'POST /api/v1/remove-payment',
    method: 'POST',
    path: '/api/v1/remove-payment',
    allowed: [200, 401, ...BODY],
    body: (x) => ({ user_id: x.userId, payment_id: 'srv-pay-1' }),
  }),
  v1({
    name: 'PUT /api/v1/connections/meta',
    method: 'PUT',
    path: '/api/v1/connections/meta',
    allowed: [200, 401, ...BODY],
    body: () => ({ dataset_id: '1234567890', access_token: 'EAAB'.repeat(8), graph_version: 'v21.0', active: false }),
  }),
  v1({
    name: 'PUT /api/v1/connections/meta/mappings',
    method: 'PUT',
    path: '/api/v1/connections/meta/mappings',
    allowed: [200, 401, ...BODY],
    body: () => ({ mappings: [{ kind: 'event', name: 'add_to_cart', to: 'AddToCart' }] }),
  }),
  v1({
    name: 'GET /api/v1/audiences/export',
    method: 'GET',
    path: '/api/v1/audiences/export',
    allowed: [200, 400, 401, 404],
    query: (x) => ({
      event: 'add_to_cart',
      from: '2024-01-01',
      to: '2024-12-31',
      format: 'meta',
      inactive_days: '7',
      inactive_by: 'app_open',
      campaign: x.displayId,
      channel: 'meta',
      platform: 'android',
      phone_country_code: '91',
    }),
  }),
  v1({
    name: 'PUT /api/v1/skan/schema',
    method: 'PUT',
    path: '/api/v1/skan/schema',
    allowed: [201, 401, ...BODY],
    body: () => ({ rules: [{ fine: 1, coarse: 'low', lock: false, conditions: [{ type: 'signup' }] }] }),
  }),
  v1({
    name: 'GET /api/v1/skan/schema',
    method: 'GET',
    path: '/api/v1/skan/schema',
    allowed: [200, 401, 404],
  }),
  ...CONNECTION_ROUTES,
  ...ANALYTICS_CONNECTION_ROUTES,
];

// Links, well-known files, operations and docs (openapi-links.ts): no credentials.
export const OPEN_ROUTES: Route[] = [
  {
    name: 'GET /?c=',
    method: 'GET',
    path: '/',
    auth: 'none',
    allowed: [200, 302, 404],
    query: (x) => ({ c: x.displayId, network: 'meta', adset_id: 'a', ad_id: 'b', gclid: 'g' }),
  },
  {
    name: 'GET /:display_id',
    method: 'GET',
    path: '/:display_id',
    auth: 'none',
    allowed: [200, 302, 404],
    params: (x) => ({ display_id: x.displayId }),
    query: () => ({ network: 'meta', fbclid: 'f' }),
  },
  {
    name: 'GET /.well-known/apple-app-site-association',
    method: 'GET',
    path: '/.well-known/apple-app-site-association',
    auth: 'none',
    allowed: [200, 404],
  },
  {
    name: 'GET /.well-known/assetlinks.json',
    method: 'GET',
    path: '/.well-known/assetlinks.json',
    auth: 'none',
    allowed: [200, 404],
  },
  { name: 'GET /healthz', method: 'GET', path: '/healthz', auth: 'none', allowed: [200] },
  // /readyz documents 503 "not ready" when a store does not answer: its meaning, not a crash.
  { name: 'GET /readyz', method: 'GET', path: '/readyz', auth: 'none', allowed: [200, 503] },
  { name: 'GET /openapi.json', method: 'GET', path: '/openapi.json', auth: 'none', allowed: [200] },
  { name: 'GET /docs', method: 'GET', path: '/docs', auth: 'none', allowed: [200] },
];

export const ALL_ROUTES: Route[] = [
  ...CLIENT_ROUTES,
  ...V1_ROUTES,
  ...OPEN_ROUTES,
  ...MCP_ROUTES,
  ...WEBHOOK_ROUTES,
  ...WEB_ROUTES,
];

const qs = (q: Record<string, string>): string => {
  const s = new URLSearchParams(q).toString();
  return s ? `?${s}` : '';
};

export function pathOf(route: Route, x: Fixture, params?: Record<string, string>): string {
  const values = { ...(route.params?.(x) ?? {}), ...(params ?? {}) };
  return route.path.replace(/:([a-z_]+)/g, (_m, name: string) => encodeURIComponent(values[name] ?? ''));
}

/**
 * The inject options of a route's request: its base (or the given) body as raw text, query and
 * params overridden, the route's credential, and a link-domain host for the open routes.
 */
export function requestOf(
  route: Route,
  x: Fixture,
  over: {
    body?: string | Buffer;
    contentType?: string;
    query?: Record<string, string> | string;
    params?: Record<string, string>;
    headers?: Record<string, string>;
  } = {},
): InjectOptions & { label: string } {
  const query =
    typeof over.query === 'string' ? (over.query ? `?${over.query}` : '') : qs(over.query ?? route.query?.(x) ?? {});
  const headers: Record<string, string> = {
    host: 'attr.test',
    ...(route.credentials?.(x) ?? (route.auth === 'serviceKey' ? x.p.headers : {})),
    ...(route.headers ?? {}),
  };
  const body = over.body ?? (route.body ? JSON.stringify(route.body(x)) : undefined);
  if (body !== undefined) {
    headers['content-type'] = over.contentType ?? 'application/json';
  }
  return {
    label: route.name,
    method: route.method,
    url: `${pathOf(route, x, over.params)}${query}`,
    headers: { ...headers, ...(over.headers ?? {}) },
    ...(body !== undefined ? { payload: body } : {}),
  };
}

/** Routes that read a JSON body. */
export const BODY_ROUTES = ALL_ROUTES.filter((r) => r.body);
export const QUERY_ROUTES = ALL_ROUTES.filter((r) => r.query);
