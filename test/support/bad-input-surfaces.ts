// The bad-input suite's routes of the two surfaces that take their own credential: the read-only MCP
// server (POST /mcp/<token>, one route per JSON-RPC method and per tool so each tool's arguments are
// fuzzed field by field; GET and DELETE answer 405), the RevenueCat webhook (POST
// /webhook/revenuecat with the token in Authorization; a purchase and a refund) and its connection
// routes. Statuses are README "MCP server" and "RevenueCat webhook" and /openapi.json
// (openapi-mcp.ts, openapi-revenuecat.ts). The shaped garbage is in bad-input-garbage.ts.
import { randomUUID } from 'node:crypto';
import { createMcpToken } from '../../src/domain/mcp/create-mcp-token.ts';
import type { Fixture, Route } from './bad-input-routes.ts';
import type { Harness, TestProject } from './harness.ts';

export const MCP_VERSION = '2025-11-25';
export const MCP_HEADERS = { 'mcp-protocol-version': MCP_VERSION, accept: 'application/json, text/event-stream' };

/** A new MCP token of the project, issued as `mcp create-token` does. */
export async function issueMcpToken(h: Harness, p: TestProject, name = 'bad-input'): Promise<string> {
  return (await createMcpToken(h.deps, p.project.id, { name })).token;
}

/** The project's RevenueCat webhook token (PUT /api/v1/connections/revenuecat; a second PUT rotates it). */
export async function connectRevenueCat(h: Harness, p: TestProject): Promise<string> {
  const res = await h.app.inject({ method: 'PUT', url: '/api/v1/connections/revenuecat', headers: p.headers });
  if (res.statusCode !== 200) {
    throw new Error(`PUT /api/v1/connections/revenuecat answered ${res.statusCode}: ${res.body}`);
  }
  return (res.json() as { data: { authorization_token: string } }).data.authorization_token;
}

// MCP: a notification or a response is 202; JSON-RPC errors (not JSON, not a message, a batch at
// another version, an unsupported MCP-Protocol-Version) are 400; 401 is a token the fuzz broke.
const MCP_POST = [200, 202, 400, 401, 413, 415] as const;

const mcp = (label: string, body: (x: Fixture) => Record<string, unknown>): Route => ({
  name: `POST /mcp/:token ${label}`,
  method: 'POST',
  path: '/mcp/:token',
  auth: 'mcpToken',
  allowed: MCP_POST,
  params: (x) => ({ token: x.mcpToken }),
  headers: MCP_HEADERS,
  body,
});

const call = (label: string, name: string, args: (x: Fixture) => Record<string, unknown>): Route =>
  mcp(`tools/call ${label}`, (x) => ({
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: { name, arguments: args(x) },
  }));

export const MCP_ROUTES: Route[] = [
  mcp('initialize', () => ({
    jsonrpc: '2.0',
    id: 'init-1',
    method: 'initialize',
    params: { protocolVersion: MCP_VERSION, capabilities: { roots: {} }, clientInfo: { name: 'fuzz', version: '1' } },
  })),
  mcp('notifications/initialized', () => ({ jsonrpc: '2.0', method: 'notifications/initialized', params: {} })),
  mcp('ping', () => ({ jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { progressToken: 1 } } })),
  mcp('tools/list', () => ({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { cursor: 'c' } })),
  call('get_project_info', 'get_project_info', () => ({})),
  call('get_project_stats', 'get_project_stats', () => ({ from: '2024-01-01', to: '2030-12-31' })),
  call('list_campaigns', 'list_campaigns', (x) => ({
    page: 1,
    limit: 10,
    filter: 'ALL',
    channel: 'META',
    domain: x.domain,
    link: `https://${x.domain}/?c=${x.displayId}`,
  })),
  call('list_events', 'list_events', () => ({ from: '2024-01-01', to: '2030-12-31' })),
  call('lookup_attribution', 'lookup_attribution', (x) => ({
    user_id: x.userId,
    device_identifier: randomUUID(),
    install_instance_id: x.iid,
  })),
  call('lookup_attribution (install id)', 'lookup_attribution', (x) => ({ install_instance_id: x.iid })),
  call('get_billing_usage (month)', 'get_billing_usage', () => ({ month: '2025-03' })),
  call('get_billing_usage (period)', 'get_billing_usage', () => ({ from: '2025-01-01', to: '2025-12-31' })),
  // The stream and the session end are not offered: 405 whatever the token (a body only on DELETE).
  {
    name: 'GET /mcp/:token',
    method: 'GET',
    path: '/mcp/:token',
    auth: 'mcpToken',
    allowed: [405],
    params: (x) => ({ token: x.mcpToken }),
    headers: { accept: 'text/event-stream' },
  },
  {
    name: 'DELETE /mcp/:token',
    method: 'DELETE',
    path: '/mcp/:token',
    auth: 'mcpToken',
    allowed: [405, 413, 415],
    params: (x) => ({ token: x.mcpToken }),
    headers: { 'mcp-session-id': 's-1' },
  },
];

/** A RevenueCat webhook body shaped as RevenueCat's samples: the fixture user's purchase unless overridden. */
export function rcBody(x: Fixture, event: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    api_version: '1.0',
    event: {
      event_timestamp_ms: 1732222222000,
      product_id: 'com.example.monthly',
      period_type: 'NORMAL',
      purchased_at_ms: 1732222217000,
      expiration_at_ms: 1734814217000,
      environment: 'PRODUCTION',
      entitlement_ids: ['pro'],
      transaction_id: '100000000000042',
      original_transaction_id: '100000000000042',
      is_family_share: false,
      country_code: 'US',
      app_user_id: x.userId,
      aliases: ['$RCAnonymousID:8069238d6049ce87cc529853916d624c', x.userId],
      original_app_user_id: '$RCAnonymousID:8069238d6049ce87cc529853916d624c',
      currency: 'USD',
      price: 9.99,
      price_in_purchased_currency: 9.99,
      subscriber_attributes: { $email: { updated_at_ms: 1662955084635, value: 'first@example.com' } },
      store: 'APP_STORE',
      takehome_percentage: 0.7,
      type: 'INITIAL_PURCHASE',
      id: 'CDFD2AB5-D4DE-4C41-8A5A-A3E6FC2D9B4D',
      app_id: 'app1234',
      ...event,
    },
  };
}

// A body the webhook cannot read is 400 (naming the field); 401 is a token the fuzz broke.
const WEBHOOK = [200, 400, 401, 413, 415] as const;

export const WEBHOOK_ROUTES: Route[] = [
  {
    name: 'POST /webhook/revenuecat',
    method: 'POST',
    path: '/webhook/revenuecat',
    auth: 'revenueCatToken',
    allowed: WEBHOOK,
    credentials: (x) => ({ authorization: `Bearer ${x.rcToken}` }),
    body: (x) => rcBody(x),
  },
  {
    name: 'POST /webhook/revenuecat (refund)',
    method: 'POST',
    path: '/webhook/revenuecat',
    auth: 'revenueCatToken',
    allowed: WEBHOOK,
    // The bare token, as RevenueCat's field also allows.
    credentials: (x) => ({ authorization: x.rcToken }),
    body: (x) =>
      rcBody(x, { type: 'CANCELLATION', cancel_reason: 'CUSTOMER_SUPPORT', price: -9.99, id: 'refund-evt-1' }),
  },
];

// The Web SDK collector (README "Web SDK"): the project token in the body; 401 is a token the fuzz
// broke, 400 a field of the wrong kind; both paths answer alike.
const WEB = [200, 400, 401, 413, 415] as const;
const webBody = (x: Fixture): Record<string, unknown> => ({
  token: x.p.token,
  event_id: randomUUID(),
  event_type: 'page_view',
  visitor_id: randomUUID(),
  session_id: randomUUID(),
  page_url: 'https://shop.example.com/pricing?utm_source=meta',
  page_path: '/pricing',
  utm_source: 'meta',
  event_data: '',
  screen_width: 1512,
  client_timestamp: '2026-11-28T10:15:30.123Z',
});
export const WEB_ROUTES: Route[] = ['/web/ingest', '/web/collect'].map((path) => ({
  name: `POST ${path}`,
  method: 'POST' as const,
  path,
  auth: 'token' as const,
  allowed: WEB,
  body: webBody,
}));

/** The analytics connections (PUT saves an inactive connection of the fixture project). */
const ANALYTICS_BODIES: Record<string, Record<string, unknown>> = {
  braze: { api_key: 'braze-key-0123456789', rest_endpoint: 'https://rest.iad-01.braze.com', active: false },
  mixpanel: { project_token: 'mixpanel-token-0123456789', region: 'eu', active: false },
  amplitude: { api_key: 'amplitude-key-0123456789', region: 'us', active: false },
  posthog: { project_api_key: 'phc_posthog0123456789', host: 'eu', active: false },
  ga4: {
    api_secret: 'ga4-secret-0123456789',
    firebase_app_id: '1:1234567890:android:0a1b2c3d4e5f6789',
    region: 'eu',
    active: false,
  },
  clevertap: { passcode: 'clevertap-passcode-0123', account_id: 'TEST-865-K5W-R47Z', region: 'in1', active: false },
};
export const ANALYTICS_CONNECTION_ROUTES: Route[] = Object.entries(ANALYTICS_BODIES).flatMap(([vendor, body]) =>
  (['PUT', 'GET', 'DELETE'] as const).map((method) => ({
    name: `${method} /api/v1/connections/${vendor}`,
    method,
    path: `/api/v1/connections/${vendor}`,
    auth: 'serviceKey' as const,
    allowed: method === 'GET' ? [200, 401] : [200, 400, 401, 413, 415],
    ...(method === 'PUT' ? { body: () => body } : {}),
  })),
);

/** The connection routes act on a spare project: rotating or removing p's token would 401 the webhook fuzz. */
export const CONNECTION_ROUTES: Route[] = (['PUT', 'GET', 'DELETE'] as const).map((method) => ({
  name: `${method} /api/v1/connections/revenuecat`,
  method,
  path: '/api/v1/connections/revenuecat',
  auth: 'serviceKey',
  allowed: method === 'DELETE' ? [200, 400, 401, 413, 415] : [200, 401],
  credentials: (x: Fixture) => x.spare.headers,
}));
