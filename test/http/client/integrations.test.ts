// POST /api/client/integrations (real-clients §4.9; catalog §4c): integration_info, a map of
// integration id names to strings (in practice {clevertap_id}), merged into the install's
// integration_info. The body's status must be 200 (iOS accepts only 200 or 201). Non-string values,
// over-long keys or values and more than 100 keys are refused with 400.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { init, post, type Res, useClientHarness } from '../../support/client.ts';
import { newProject, type TestProject } from '../../support/harness.ts';

const h = useClientHarness();

const SAVED = {
  msg: 'Integration data saved successfully',
  status: 200,
  data: { message: 'Integration data saved successfully' },
};
const INVALID = {
  msg: 'integration_info must be an object of string values (keys up to 128 and values up to 512 characters).',
  status: 400,
};
const TOO_MANY = { msg: 'integration_info may hold at most 100 keys.', status: 400 };

async function installed(): Promise<{ p: TestProject; iid: string }> {
  const p = await newProject(h().deps);
  const iid = randomUUID();
  expect((await init(h(), p.token, { install_instance_id: iid })).statusCode).toBe(202);
  return { p, iid };
}

function send(p: TestProject, iid: string, info: unknown): Promise<Res> {
  return post(h(), 'integrations', {
    token: p.token,
    platform: 'IOS',
    install_instance_id: iid,
    integration_info: info,
  });
}

async function info(p: TestProject, iid: string): Promise<Record<string, string> | undefined> {
  const [row] = await h().deps.sql<{ integration_info: Record<string, string> }[]>`
    SELECT integration_info FROM installs WHERE project_id = ${p.project.id} AND install_instance_id = ${iid}`;
  return row?.integration_info;
}

const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, `v${i}`]));

describe('200', () => {
  it('when the SDK sends its clevertap_id, then 200 with status 200 and it is stored', async () => {
    const { p, iid } = await installed();

    const res = await send(p, iid, { clevertap_id: 'ct-123' });

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(SAVED);
    expect(await info(p, iid)).toEqual({ clevertap_id: 'ct-123' });
  });

  it('when ids arrive in several calls, then they are merged and a repeated key takes the new value', async () => {
    const { p, iid } = await installed();
    await send(p, iid, { clevertap_id: 'old', braze_id: 'b-1' });

    await send(p, iid, { clevertap_id: 'new' });

    expect(await info(p, iid)).toEqual({ clevertap_id: 'new', braze_id: 'b-1' });
  });

  it('when exactly 100 keys with 512-character values are sent, then they are stored', async () => {
    const { p, iid } = await installed();
    const map = { ...keys(99), long: 'v'.repeat(512) };

    expect((await send(p, iid, map)).json()).toEqual(SAVED);
    expect(Object.keys((await info(p, iid)) ?? {})).toHaveLength(100);
  });

  it('when an empty map is sent, then 200 and nothing changes', async () => {
    const { p, iid } = await installed();
    expect((await send(p, iid, {})).json()).toEqual(SAVED);
    expect(await info(p, iid)).toEqual({});
  });
});

describe('400', () => {
  it.each<[string, unknown, { msg: string; status: number }]>([
    ['integration_info is missing', undefined, INVALID],
    ['integration_info is null', null, INVALID],
    ['integration_info is a string', 'clevertap_id=1', INVALID],
    ['integration_info is an array', ['ct'], INVALID],
    ['a value is a number', { clevertap_id: 123 }, INVALID],
    ['a value is null', { clevertap_id: null }, INVALID],
    ['a value is an object', { clevertap_id: { id: 'x' } }, INVALID],
    ['a value is 513 characters', { clevertap_id: 'x'.repeat(513) }, INVALID],
    ['a key is 129 characters', { ['k'.repeat(129)]: 'x' }, INVALID],
    ['101 keys are sent', keys(101), TOO_MANY],
    ['1000 keys are sent', keys(1000), TOO_MANY],
  ])('when %s, then 400 with its text and nothing stored', async (_case, value, expected) => {
    const { p, iid } = await installed();

    const res = await send(p, iid, value);

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(expected);
    expect(await info(p, iid)).toEqual({});
  });

  it('when a merge would make more than 100 keys, then 400 and the stored map is unchanged', async () => {
    const { p, iid } = await installed();
    await send(p, iid, keys(60));

    const res = await send(p, iid, Object.fromEntries(Array.from({ length: 41 }, (_, i) => [`n${i}`, 'x'])));

    expect(res.json()).toEqual(TOO_MANY);
    expect(Object.keys((await info(p, iid)) ?? {})).toHaveLength(60);
  });

  it('when the install never called init, then 400 Install not found.', async () => {
    const p = await newProject(h().deps);
    const res = await send(p, randomUUID(), { clevertap_id: 'x' });
    expect(res.json()).toEqual({ msg: 'Install not found. Call init first.', status: 400 });
  });

  it('when the token is wrong, then 400 with the client token text', async () => {
    const res = await post(h(), 'integrations', { token: 'pt_x', install_instance_id: 'i', integration_info: {} });
    expect(res.json()).toEqual({ msg: 'Invalid or missing project token.', status: 400 });
  });
});
