// PUT/GET /api/v1/skan/schema (ours, campaign family auth): a validated schema stored as the next
// version; GET answers the current (highest) version. Event names are cleaned as capture-event
// cleans event_name (NUL dropped, a lone surrogate → U+FFFD), so a schema matches what clients store.
import { describe, expect, it } from 'vitest';
import { useClientHarness } from '../../support/client.ts';
import { newProject, type TestProject } from '../../support/harness.ts';

const h = useClientHarness();
const SCHEMA = { rules: [{ fine: 1, coarse: 'low', lock: false, conditions: [{ type: 'signup' }] }] };
const SCHEMA_2 = {
  rules: [{ fine: 2, coarse: 'high', lock: true, conditions: [{ type: 'revenue', amount: { min: 5 } }] }],
};

const put = (p: TestProject | undefined, payload: unknown) =>
  h().app.inject({ method: 'PUT', url: '/api/v1/skan/schema', headers: p?.headers ?? {}, payload: payload as object });
const get = (p: TestProject) => h().app.inject({ method: 'GET', url: '/api/v1/skan/schema', headers: p.headers });

describe('201 / 200', () => {
  it('when two schemas are put, then versions 1 and 2 and GET answers version 2', async () => {
    const p = await newProject(h().deps);

    const first = await put(p, SCHEMA);
    const second = await put(p, SCHEMA_2);
    const current = await get(p);

    expect(first.statusCode).toBe(201);
    expect(first.json()).toEqual({
      msg: 'SKAN schema saved as version 1.',
      status: 201,
      data: { version: 1, created_at: expect.any(String), schema: SCHEMA },
    });
    expect(second.json().msg).toBe('SKAN schema saved as version 2.');
    expect(current.json()).toEqual({
      msg: 'SKAN schema found.',
      status: 200,
      data: { version: 2, created_at: expect.any(String), schema: SCHEMA_2 },
    });
  });

  it('when five schemas are put at once, then each is its own version (two used to race for one: a 500)', async () => {
    const p = await newProject(h().deps);

    const all = await Promise.all(Array.from({ length: 5 }, () => put(p, SCHEMA)));

    expect(all.map((r) => r.statusCode)).toEqual([201, 201, 201, 201, 201]);
    expect(all.map((r) => r.json().data.version).sort()).toEqual([1, 2, 3, 4, 5]);
  });
});

describe('201 event names', () => {
  it('when an event name contains U+0000, then 201 and the name stored without it', async () => {
    const p = await newProject(h().deps);

    const res = await put(p, {
      rules: [{ fine: 3, coarse: 'low', conditions: [{ type: 'event', name: 'level\u0000up' }] }],
    });

    expect(res.statusCode).toBe(201);
    expect(res.json().data.schema.rules[0].conditions).toEqual([{ type: 'event', name: 'levelup', min_count: 1 }]);
    expect((await get(p)).json().data.schema.rules[0].conditions[0].name).toBe('levelup');
  });

  it('when an event name contains a lone surrogate, then 201 and the name stored with U+FFFD', async () => {
    const p = await newProject(h().deps);

    const res = await h().app.inject({
      method: 'PUT',
      url: '/api/v1/skan/schema',
      headers: { ...p.headers, 'content-type': 'application/json' },
      payload: '{"rules":[{"fine":3,"coarse":"low","conditions":[{"type":"event","name":"a\\ud800b"}]}]}',
    });

    expect(res.statusCode).toBe(201);
    expect(res.json().data.schema.rules[0].conditions[0].name).toBe('a\ufffdb');
  });
});

describe('400', () => {
  it('when an event name is only U+0000, then 400 naming the field and nothing stored', async () => {
    const p = await newProject(h().deps);

    const res = await put(p, { rules: [{ fine: 3, coarse: 'low', conditions: [{ type: 'event', name: '\u0000' }] }] });

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      msg: 'Invalid SKAN schema: rules.0.conditions.0.name: Too small: expected string to have >=1 characters',
      status: 400,
    });
    expect((await get(p)).statusCode).toBe(404);
  });

  it('when an event name is blank or longer than 255 characters, then 400 naming the field', async () => {
    const p = await newProject(h().deps);
    const withName = (name: string) => ({ rules: [{ fine: 3, coarse: 'low', conditions: [{ type: 'event', name }] }] });

    const blank = await put(p, withName('  '));
    const long = await put(p, withName('x'.repeat(256)));
    const emoji = await put(p, withName('😀'.repeat(255)));

    expect(blank.json()).toEqual({
      msg: 'Invalid SKAN schema: rules.0.conditions.0.name: must be 1-255 characters, not blank',
      status: 400,
    });
    expect(long.json().msg).toBe(blank.json().msg);
    expect(emoji.statusCode).toBe(201);
  });

  it('when a fine value is out of range, then 400 naming the field and nothing stored', async () => {
    const p = await newProject(h().deps);

    const res = await put(p, { rules: [{ fine: 64, coarse: 'low', conditions: [{ type: 'signup' }] }] });

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      msg: 'Invalid SKAN schema: rules.0.fine: Too big: expected number to be <=63',
      status: 400,
    });
    expect((await get(p)).statusCode).toBe(404);
  });
});

describe('401 / 404', () => {
  it('when the server key is missing, then 401 Server key missing!', async () => {
    const res = await put(undefined, SCHEMA);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ msg: 'Server key missing!', status: 401 });
  });

  it('when no schema was set, then GET answers 404', async () => {
    const p = await newProject(h().deps);
    const res = await get(p);
    expect(res.json()).toEqual({ msg: 'No SKAN schema is set for this project.', status: 404 });
  });
});
