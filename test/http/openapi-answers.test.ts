// Real answers of the routes against the response schemas of /openapi.json (ajv): the success
// answers of every /api route family and the error envelope, and every key a 2xx answer carries
// under `data` (or at the top of init's bare body) is a property of the documented schema.
import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { attributedInstall, useClientHarness } from '../support/client.ts';
import { signUp } from '../support/commerce.ts';
import { campaign } from '../support/factories.ts';
import type { TestProject } from '../support/harness.ts';
import { newProject } from '../support/harness.ts';
import { answerProblems, fetchDoc, type Json, type OpenApiDoc, operation } from '../support/openapi.ts';

const h = useClientHarness();

let doc: OpenApiDoc;
let p: TestProject;
let displayId: string;
let iid: string;
const iosIid = randomUUID();
const userId = 'docs-user';

beforeAll(async () => {
  doc = await fetchDoc(h().app);
  p = await newProject(h().deps);
  const skan = await h().app.inject({
    method: 'PUT',
    url: '/api/v1/skan/schema',
    headers: p.headers,
    payload: { rules: [{ fine: 7, coarse: 'medium', conditions: [{ type: 'signup' }] }] },
  });
  expect(skan.statusCode).toBe(201);
  const attributed = await attributedInstall(h(), p);
  displayId = attributed.campaign.displayId;
  iid = attributed.iid;
  await signUp(h(), p, iid, userId);
  const ios = { token: p.token, install_instance_id: iosIid, platform: 'IOS' };
  expect(
    (await h().app.inject({ method: 'POST', url: '/api/client/init', payload: { ...ios, device_data: {} } }))
      .statusCode,
  ).toBe(202);
  await signUp(h(), p, iosIid, 'docs-ios-user');
});

/** Keys of the answer's data (init: of the body) that the documented schema does not name. */
function unnamedKeys(method: string, path: string, status: number, body: Json): string[] {
  const schema = operation(doc, method, path).responses[String(status)]?.content?.['application/json']?.schema as
    | { properties?: Record<string, { properties?: Json; anyOf?: { properties?: Json }[] }> }
    | undefined;
  const dataSchema = schema?.properties?.data;
  const [value, named] =
    dataSchema === undefined
      ? [body, schema?.properties ?? {}]
      : [body.data, dataSchema.properties ?? dataSchema.anyOf?.find((s) => s.properties)?.properties ?? {}];
  return value && typeof value === 'object' ? Object.keys(value).filter((k) => !(k in named)) : [];
}

type Call = [
  label: string,
  path: string,
  req: () => InjectOptions & { method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' },
];

const v1 = (
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  url: () => string,
  payload?: () => object,
): Call => [
  `${method} ${path}`,
  path,
  () => ({ method, url: url(), headers: p.headers, ...(payload ? { payload: payload() } : {}) }),
];
const client = (path: string, body: () => object, platform = 'ANDROID'): Call => [
  `POST /api/client/${path} (${platform})`,
  `/api/client/${path}`,
  () => ({
    method: 'POST',
    url: `/api/client/${path}`,
    payload: { token: p.token, install_instance_id: platform === 'IOS' ? iosIid : iid, platform, ...body() },
  }),
];

// In order: later calls read what earlier ones wrote (the payment that remove-payment removes).
const SUCCESS: Call[] = [
  v1('GET', '/api/v1/campaigns', () => '/api/v1/campaigns'),
  v1(
    'POST',
    '/api/v1/create-campaign',
    () => '/api/v1/create-campaign',
    () => ({ name: ' Docs ', is_shortlink: true }),
  ),
  v1(
    'PATCH',
    '/api/v1/campaigns/{display_id}',
    () => `/api/v1/campaigns/${displayId}`,
    () => ({ active: true }),
  ),
  v1('GET', '/api/v1/attributed-users', () => `/api/v1/attributed-users?display_id=${displayId}`),
  v1('GET', '/api/v1/get-attribution-result', () => `/api/v1/get-attribution-result?user_id=${userId}`),
  v1('GET', '/api/v1/get-attribution-result', () => '/api/v1/get-attribution-result?user_id=nobody'),
  v1('GET', '/api/v1/reporting/campaigns', () => '/api/v1/reporting/campaigns?limit=5'),
  v1('GET', '/api/v1/skan/schema', () => '/api/v1/skan/schema'),
  v1(
    'PUT',
    '/api/v1/connections/meta/mappings',
    () => '/api/v1/connections/meta/mappings',
    () => ({
      mappings: [{ kind: 'payment', name: 'DEFAULT', to: 'Purchase' }],
    }),
  ),
  v1(
    'PUT',
    '/api/v1/spend',
    () => '/api/v1/spend',
    () => ({
      rows: [{ day: '2025-03-01', campaign_display_id: displayId, amount: 1 }, { day: 'x' }],
    }),
  ),
  client('attribution-data', () => ({})),
  client('attribution-data', () => ({}), 'IOS'),
  client('handle-deeplink', () => ({ deeplink_url: 'https://example.com/x' }), 'IOS'),
  client('trigger', () => ({ user_data: { id: userId } })),
  client('set-user-data', () => ({ user_data: { name: 'N' } })),
  client('customer-user-id', () => ({ user_id: userId })),
  client('capture-event', () => ({ event_name: 'level_up', event_id: 42 }), 'IOS'),
  client('capture-payment', () => ({ amount: 5, payment_id: 'pay-1', type: '' }), 'IOS'),
  client('capture-payment', () => ({ amount: 5, payment_id: 'pay-1' }), 'IOS'),
  client('remove-captured-payment', () => ({ payment_id: 'pay-1' })),
  client('update-push-token', () => ({ push_token: ' tok ' })),
  client('integrations', () => ({ integration_info: { clevertap_id: 'c1' } })),
  v1(
    'POST',
    '/api/v1/capture-event',
    () => '/api/v1/capture-event',
    () => ({ event_name: 'e', user_id: userId }),
  ),
  v1(
    'POST',
    '/api/v1/capture-payment',
    () => '/api/v1/capture-payment',
    () => ({ amount: 2, user_id: userId, payment_id: 's1' }),
  ),
  v1(
    'POST',
    '/api/v1/remove-payment',
    () => '/api/v1/remove-payment',
    () => ({ payment_id: 's1' }),
  ),
  v1('DELETE', '/api/v1/users/{user_id}', () => `/api/v1/users/${userId}`),
  v1('DELETE', '/api/v1/campaigns/{display_id}', () => `/api/v1/campaigns/${displayId}`),
];

describe('success answers', () => {
  it.each(SUCCESS)(
    'when %s succeeds, then the body validates against the documented schema and names every key',
    async (_l, path, req) => {
      const r = req();

      const res = await h().app.inject(r);

      expect(res.statusCode, res.body).toBeLessThan(300);
      expect(answerProblems(doc, r.method, path, res)).toEqual([]);
      if (res.body !== '') {
        expect(unnamedKeys(r.method, path, res.statusCode, res.json())).toEqual([]);
      }
    },
  );

  it('when init registers an install, then its bare 202 body validates', async () => {
    const res = await h().app.inject({
      method: 'POST',
      url: '/api/client/init',
      payload: { token: p.token, install_instance_id: randomUUID(), platform: 'ANDROID', app_version: 3 },
    });

    expect(res.statusCode).toBe(202);
    expect(answerProblems(doc, 'POST', '/api/client/init', res)).toEqual([]);
    expect(unnamedKeys('POST', '/api/client/init', 202, res.json())).toEqual([]);
  });

  it('when a create-campaign answer is checked, then the created campaign is the documented shape', async () => {
    const created = await campaign(h().app, p, {
      name: 'Docs 2',
      custom_display_id: `docs-${randomUUID().slice(0, 6)}`,
    });

    expect(created).toEqual(expect.objectContaining({ display_id: expect.any(String), link: expect.any(String) }));
  });

  it('when /healthz, /readyz and a missing well-known file answer, then their bodies validate', async () => {
    for (const [path, url] of [
      ['/healthz', '/healthz'],
      ['/readyz', '/readyz'],
      ['/.well-known/assetlinks.json', '/.well-known/assetlinks.json'],
    ] as const) {
      const res = await h().app.inject({ method: 'GET', url });

      expect(answerProblems(doc, 'GET', path, res), url).toEqual([]);
    }
  });
});

describe('error answers', () => {
  it.each([
    ['401 list', 'GET', '/api/v1/campaigns', { url: '/api/v1/campaigns' }],
    [
      '422 limit',
      'GET',
      '/api/v1/attributed-users',
      { url: '/api/v1/attributed-users?display_id=x&limit=0', key: true },
    ],
    [
      '404 edit',
      'PATCH',
      '/api/v1/campaigns/{display_id}',
      { url: '/api/v1/campaigns/nothing1', key: true, payload: { active: true } },
    ],
    [
      '400 create',
      'POST',
      '/api/v1/create-campaign',
      { url: '/api/v1/create-campaign', key: true, payload: { name: ' ' } },
    ],
    ['400 client', 'POST', '/api/client/trigger', { url: '/api/client/trigger', payload: { token: 'nope' } }],
    [
      '401 attribution-data',
      'POST',
      '/api/client/attribution-data',
      { url: '/api/client/attribution-data', payload: { token: 'nope' } },
    ],
  ] as const)('when %s is answered, then the envelope validates', async (_l, method, path, o) => {
    const res = await h().app.inject({
      method,
      url: o.url,
      headers: 'key' in o ? p.headers : {},
      ...('payload' in o ? { payload: o.payload } : {}),
    });

    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(answerProblems(doc, method, path, res)).toEqual([]);
  });
});
