// Requests against the request schemas of /openapi.json (ajv) and the routes: a value a route
// refuses is one the document calls invalid, and a value a route accepts is one it calls valid.
// A check JSON Schema cannot state (cross-field rules, a URL parse) is written in the description
// of the field, and those cases assert that instead.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { init, useClientHarness } from '../support/client.ts';
import { signUp } from '../support/commerce.ts';
import { campaign } from '../support/factories.ts';
import { newProject, type TestProject } from '../support/harness.ts';
import { type DocOperation, fetchDoc, type OpenApiDoc, operation, requestProblems } from '../support/openapi.ts';

const h = useClientHarness();

let doc: OpenApiDoc;
let p: TestProject;
let displayId: string;
const iid = randomUUID();

beforeAll(async () => {
  doc = await fetchDoc(h().app);
  p = await newProject(h().deps);
  displayId = (await campaign(h().app, p, { name: 'docs' })).display_id;
  expect((await init(h(), p.token, { install_instance_id: iid })).statusCode).toBe(202);
  await signUp(h(), p, iid, 'u1');
});

type Case = {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  path: string;
  params?: () => Record<string, string>;
  query?: Record<string, string> | (() => Record<string, string>);
  body?: Record<string, unknown>;
  /** client routes: token, install id and platform are added to the body */
  client?: boolean;
};

async function send(c: Case) {
  const params = c.params?.() ?? {};
  const query = typeof c.query === 'function' ? c.query() : (c.query ?? {});
  const body = c.client ? { token: p.token, install_instance_id: iid, platform: 'ANDROID', ...c.body } : c.body;
  const url = c.path.replace(/\{(\w+)\}/g, (_m, k: string) => encodeURIComponent(params[k] ?? ''));
  const op = operation(doc, c.method, c.path);
  const problems = requestProblems(doc, op, { query, params, body });
  const res = await h().app.inject({
    method: c.method,
    url,
    query,
    headers: c.client ? {} : p.headers,
    ...(body === undefined ? {} : { payload: body }),
  });
  return { op, problems, status: res.statusCode, body: res.body };
}

const x = (n: number) => 'x'.repeat(n);
const get = (path: string, query: Record<string, string>): Case => ({ method: 'GET', path, query });
const post = (path: string, body: Record<string, unknown>): Case => ({ method: 'POST', path, body });
const clientPost = (path: string, body: Record<string, unknown>): Case => ({
  method: 'POST',
  path,
  body,
  client: true,
});
const edit = (body: Record<string, unknown>): Case => ({
  method: 'PATCH',
  path: '/api/v1/campaigns/{display_id}',
  params: () => ({ display_id: displayId }),
  body,
});
const meta = (body: Record<string, unknown>): Case => ({
  method: 'PUT',
  path: '/api/v1/connections/meta',
  body: { dataset_id: '123', access_token: 'A'.repeat(30), active: true, ...body },
});
const mapping = (m: Record<string, string>): Case => ({
  method: 'PUT',
  path: '/api/v1/connections/meta/mappings',
  body: { mappings: [m] },
});

const REFUSED: [string, Case][] = [
  ['list limit=0', get('/api/v1/campaigns', { limit: '0' })],
  ['list limit=1001', get('/api/v1/campaigns', { limit: '1001' })],
  ['list filter=open', get('/api/v1/campaigns', { filter: 'open' })],
  ['attributed-users limit=1001', get('/api/v1/attributed-users', { display_id: 'd', limit: '1001' })],
  [
    'attributed-users start_timestamp=yesterday',
    get('/api/v1/attributed-users', { display_id: 'd', start_timestamp: 'yesterday' }),
  ],
  ['attributed-users display_id blank', get('/api/v1/attributed-users', { display_id: ' ' })],
  ['reporting limit=101', get('/api/v1/reporting/campaigns', { limit: '101' })],
  ['reporting active_users=0', get('/api/v1/reporting/campaigns', { active_users: '0' })],
  ['reporting active_users=0001', get('/api/v1/reporting/campaigns', { active_users: '0001' })],
  ['reporting meta_account_id=abc', get('/api/v1/reporting/campaigns', { meta_account_id: 'abc' })],
  ['reporting meta_account_id=2147483648', get('/api/v1/reporting/campaigns', { meta_account_id: '2147483648' })],
  ['reporting search of 501 characters', get('/api/v1/reporting/campaigns', { search: x(501) })],
  ['reporting from=tomorrow', get('/api/v1/reporting/campaigns', { from: 'tomorrow' })],
  ['reporting platform=web', get('/api/v1/reporting/campaigns', { platform: 'web' })],
  ['get-attribution-result user_id of 257 characters', get('/api/v1/get-attribution-result', { user_id: x(257) })],
  ['create name " "', post('/api/v1/create-campaign', { name: ' ' })],
  [
    'create link_for_desktop_users "not a url"',
    post('/api/v1/create-campaign', { name: 'n', link_for_desktop_users: 'not a url' }),
  ],
  [
    'create deeplink "javascript alert(1)"',
    post('/api/v1/create-campaign', { name: 'n', deeplink: 'javascript alert(1)' }),
  ],
  ['create custom_display_id "docs"', post('/api/v1/create-campaign', { name: 'n', custom_display_id: 'docs' })],
  [
    'create custom_display_id "Well-Known"',
    post('/api/v1/create-campaign', { name: 'n', custom_display_id: 'Well-Known' }),
  ],
  ['edit body {}', edit({})],
  ['edit name of 501 characters', edit({ name: x(501) })],
  ['server capture-event user_id ""', post('/api/v1/capture-event', { event_name: 'e', user_id: '' })],
  [
    'server capture-event user_id of 257 characters',
    post('/api/v1/capture-event', { event_name: 'e', user_id: x(257) }),
  ],
  ['server capture-payment user_id ""', post('/api/v1/capture-payment', { amount: 1, user_id: '' })],
  ['server capture-payment amount 1e21', post('/api/v1/capture-payment', { amount: 1e21, user_id: 'u1' })],
  ['remove-payment body {}', post('/api/v1/remove-payment', {})],
  ['remove-payment payment_id of 300 characters', post('/api/v1/remove-payment', { payment_id: x(300) })],
  ['meta dataset_id -1', meta({ dataset_id: -1 })],
  ['meta graph_version "latest"', meta({ graph_version: 'latest' })],
  ['meta access_token too short', meta({ access_token: 'short' })],
  ['mapping of an event to Purchase', mapping({ kind: 'event', name: 'bought', to: 'Purchase' })],
  ['mapping of a payment type that is none', mapping({ kind: 'payment', name: 'MY_PAYMENT', to: 'Purchase' })],
  ['init install_instance_id of 129 characters', clientPost('/api/client/init', { install_instance_id: x(129) })],
  ['handle-deeplink deeplink_url ""', clientPost('/api/client/handle-deeplink', { deeplink_url: '' })],
  [
    'trigger install_instance_id ""',
    clientPost('/api/client/trigger', { install_instance_id: '', user_data: { id: 'u1' } }),
  ],
  ['customer-user-id user_id " "', clientPost('/api/client/customer-user-id', { user_id: ' ' })],
  [
    'capture-event user_id of 300 characters',
    clientPost('/api/client/capture-event', { event_name: 'e', user_id: x(300) }),
  ],
  ['capture-event event_name " "', clientPost('/api/client/capture-event', { event_name: ' ' })],
  [
    'capture-event event_id of 129 characters',
    clientPost('/api/client/capture-event', { event_name: 'e', event_id: x(129) }),
  ],
  ['capture-payment type "default"', clientPost('/api/client/capture-payment', { amount: 1, type: 'default' })],
  ['remove-captured-payment with neither id', clientPost('/api/client/remove-captured-payment', { payment_id: '' })],
  [
    'integrations with 101 keys',
    clientPost('/api/client/integrations', {
      integration_info: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, 'v'])),
    }),
  ],
  ['update-push-token push_token " "', clientPost('/api/client/update-push-token', { push_token: ' ' })],
];

describe('a request a route refuses', () => {
  it.each(REFUSED)('when %s is sent, then 400 or 422 and /openapi.json calls it invalid', async (_l, c) => {
    const r = await send(c);

    expect([400, 422], r.body).toContain(r.status);
    expect(r.problems).not.toEqual([]);
  });
});

/** The description of a parameter, or of the body and its fields (JSON text of the schema). */
const described = (op: DocOperation, name?: string): string =>
  name
    ? (op.parameters.find((q) => q.name === name)?.description ?? '')
    : JSON.stringify(op.requestBody?.content['application/json']?.schema ?? {});

const DESCRIBED: [string, Case, name: string | undefined, text: string][] = [
  [
    'SKAN revenue amount with min above max',
    {
      method: 'PUT',
      path: '/api/v1/skan/schema',
      body: { rules: [{ fine: 1, coarse: 'low', conditions: [{ type: 'revenue', amount: { min: 5, max: 1 } }] }] },
    },
    undefined,
    'min must be below max',
  ],
  [
    'get-attribution-result with neither id',
    get('/api/v1/get-attribution-result', {}),
    'user_id',
    'One of device_identifier and user_id is required',
  ],
  [
    'reporting from after to',
    get('/api/v1/reporting/campaigns', { from: '2025-02-01', to: '2025-01-01' }),
    'from',
    'from must not be after to',
  ],
  [
    'reporting from=2025-02-30',
    get('/api/v1/reporting/campaigns', { from: '2025-02-30' }),
    'from',
    'a real calendar date',
  ],
  [
    'create link with credentials',
    post('/api/v1/create-campaign', { name: 'n', link_for_desktop_users: 'https://u:p@example.com/' }),
    undefined,
    'no credentials',
  ],
];

describe('a check JSON Schema cannot state', () => {
  it.each(DESCRIBED)('when %s is sent, then 400 and the description states the rule', async (_l, c, name, text) => {
    const r = await send(c);

    expect(r.status, r.body).toBe(400);
    expect(described(r.op, name)).toContain(text);
  });
});

const ACCEPTED: [string, Case][] = [
  ['list filter=active', get('/api/v1/campaigns', { filter: 'active' })],
  ['list filter="" and limit=0010', get('/api/v1/campaigns', { filter: '', limit: '0010' })],
  [
    'attributed-users with padded values',
    {
      method: 'GET',
      path: '/api/v1/attributed-users',
      query: () => ({ display_id: ` ${displayId} `, timezone: ' UTC ', start_timestamp: ' 2025-01-01T00:00:00.5 ' }),
    },
  ],
  ['reporting platform=IOS', get('/api/v1/reporting/campaigns', { platform: 'IOS' })],
  [
    'reporting padded and mixed-case values',
    get('/api/v1/reporting/campaigns', {
      view: ' Retargeting ',
      sort_order: 'ASCENDING',
      active_users: ' 007 ',
      meta_account_id: '',
      search: `  ${x(500)}  `,
      from: ' 2025-01-01 ',
    }),
  ],
  ['create name of 500 characters plus spaces', post('/api/v1/create-campaign', { name: `   ${x(500)}   ` })],
  [
    'create custom_display_id "docs2" and an app deeplink',
    post('/api/v1/create-campaign', {
      name: 'n',
      custom_display_id: `docs-${randomUUID().slice(0, 8)}`,
      deeplink: 'myapp://x',
    }),
  ],
  ['edit active only', edit({ active: false })],
  ['capture-event event_id 42 (a number)', clientPost('/api/client/capture-event', { event_name: 'e', event_id: 42 })],
  [
    'capture-event user_id "" and event_id null',
    clientPost('/api/client/capture-event', { event_name: 'e', user_id: '', event_id: null }),
  ],
  [
    'capture-payment type "" and payment_id null',
    clientPost('/api/client/capture-payment', { amount: 1, type: '', status: null, payment_id: null }),
  ],
  ['customer-user-id user_id 42 (a number)', clientPost('/api/client/customer-user-id', { user_id: 42 })],
  ['set-user-data user_data.id ""', clientPost('/api/client/set-user-data', { user_data: { id: '', name: 7 } })],
  [
    'trigger user_data.id " u1 "',
    clientPost('/api/client/trigger', { user_data: { id: ' u1 ' }, customer_created_at: x(80) }),
  ],
  ['init app_version 3 (a number)', clientPost('/api/client/init', { app_version: 3, link: 'https://x.test/a' })],
  ['remove-captured-payment user_id only', clientPost('/api/client/remove-captured-payment', { user_id: 'u1' })],
  ['update-push-token padded', clientPost('/api/client/update-push-token', { push_token: ' tok ' })],
  ['server capture-event user_id 7 (a number)', post('/api/v1/capture-event', { event_name: 'e', user_id: 7 })],
];

describe('a request a route accepts', () => {
  it.each(ACCEPTED)('when %s is sent, then 2xx and /openapi.json calls it valid', async (_l, c) => {
    const r = await send(c);

    expect(r.status, r.body).toBeGreaterThanOrEqual(200);
    expect(r.status).toBeLessThan(300);
    expect(r.problems).toEqual([]);
  });
});
