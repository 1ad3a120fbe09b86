// PUT /api/v1/connections/meta and /api/v1/connections/meta/mappings (issue 4; texts are ours):
// 200 with the saved connection (token fingerprint only) or the project's mappings; 400 with the
// broken rule; 401 with the campaign family's texts.
import { describe, expect, it } from 'vitest';
import { ACCESS_TOKEN, deliveryEnv } from '../../support/deliveries.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: deliveryEnv() });

function put(p: TestProject | { headers: Record<string, string> }, url: string, payload: unknown) {
  return h().app.inject({ method: 'PUT', url: `/api/v1${url}`, headers: p.headers, payload: payload as object });
}

describe('200', () => {
  it('when a connection is saved active, then it answers the connection without the token', async () => {
    const p = await newProject(h().deps);

    const res = await put(p, '/connections/meta', {
      dataset_id: '42',
      access_token: ACCESS_TOKEN,
      active: true,
      graph_version: 'v22.0',
    });

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      msg: 'Meta connection saved.',
      status: 200,
      data: {
        dataset_id: '42',
        graph_version: 'v22.0',
        active: true,
        activated_at: expect.any(String),
        token_fingerprint: expect.stringMatching(/^[0-9a-f]{12}$/),
      },
    });
    expect(res.body).not.toContain(ACCESS_TOKEN);
  });

  it('when mappings are saved, then it answers every mapping of the project', async () => {
    const p = await newProject(h().deps);
    await put(p, '/connections/meta/mappings', { mappings: [{ kind: 'event', name: 'cart', to: 'AddToCart' }] });

    const res = await put(p, '/connections/meta/mappings', {
      mappings: [
        { kind: 'payment', name: 'DEFAULT', to: 'Purchase' },
        { kind: 'event', name: 'cart', to: 'ViewContent' },
      ],
    });

    expect(res.json()).toEqual({
      msg: '2 event mapping(s) saved.',
      status: 200,
      data: {
        mappings: [
          { kind: 'event', name: 'cart', to: 'ViewContent' },
          { kind: 'payment', name: 'DEFAULT', to: 'Purchase' },
        ],
      },
    });
  });
});

describe('400', () => {
  it.each([
    [
      { dataset_id: 'abc', access_token: ACCESS_TOKEN, active: true },
      'Invalid connection: dataset_id must be the numeric id of the Meta dataset',
    ],
    [{ dataset_id: '42', access_token: ACCESS_TOKEN, active: 'yes' }, 'Invalid connection: active must be a boolean'],
    [{ dataset_id: '42', active: true }, 'Invalid connection: dataset_id and access_token are required strings'],
    [
      { dataset_id: '42', access_token: ACCESS_TOKEN, active: true, graph_version: '21' },
      'Invalid connection: graph_version must look like v21.0',
    ],
  ])('when the connection body is %j, then 400 "%s"', async (body, msg) => {
    const p = await newProject(h().deps);
    const res = await put(p, '/connections/meta', body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ msg, status: 400 });
  });

  it.each([
    [{}, 'mappings must be an array of 1 to 100 objects {kind, name, to}.'],
    [
      { mappings: [{ kind: 'event', name: 'buy', to: 'Purchase' }] },
      "Invalid mapping at index 0: an event maps to 'AddToCart' or 'ViewContent'",
    ],
    [
      { mappings: [{ kind: 'payment', name: 'NOPE', to: 'Purchase' }] },
      expect.stringContaining('Invalid mapping at index 0: a payment type is one of FIRST_PAYMENT'),
    ],
  ])('when the mappings body is %j, then 400', async (body, msg) => {
    const p = await newProject(h().deps);
    const res = await put(p, '/connections/meta/mappings', body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ msg, status: 400 });
  });
});

describe('401', () => {
  it('when the server key is missing or wrong, then the campaign family texts', async () => {
    expect((await put({ headers: {} }, '/connections/meta', {})).json()).toEqual({
      msg: 'Server key missing!',
      status: 401,
    });
    expect((await put({ headers: { 'service-key': 'nope' } }, '/connections/meta/mappings', {})).json()).toEqual({
      msg: 'Server key invalid!',
      status: 401,
    });
  });
});
