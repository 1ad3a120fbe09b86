// POST /api/client/update-push-token and the legacy POST /api/client/updatePushToken (AND-1.1's
// free-form map; real-clients §4.8): the push token is stored on the install (uninstall tracking);
// 200 {msg, status, data: {message}} (spec: response not shown). An install that never called init
// is a 400, as on attribution-data. A token has one install per project: the one that sent it last
// (an iOS reinstall keeps its APNs token under a new install_instance_id).
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { init, post, useClientHarness } from '../../support/client.ts';
import { newProject, type TestProject } from '../../support/harness.ts';

const h = useClientHarness();

const SAVED = {
  msg: 'Push token updated successfully',
  status: 200,
  data: { message: 'Push token updated successfully' },
};
const BAD_TOKEN_FIELD = { msg: 'push_token must be a non-empty string of at most 4096 characters.', status: 400 };
const APNS = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';
const FCM = 'dQw4w9WgXcQ:APA91bH-x_yz'.padEnd(163, 'Q');

async function installed(): Promise<{ p: TestProject; iid: string }> {
  const p = await newProject(h().deps);
  const iid = randomUUID();
  expect((await init(h(), p.token, { install_instance_id: iid })).statusCode).toBe(202);
  return { p, iid };
}

async function stored(p: TestProject, iid: string) {
  const [row] = await h().deps.sql<{ push_token: string | null; push_token_updated_at: Date | null }[]>`
    SELECT push_token, push_token_updated_at FROM installs
    WHERE project_id = ${p.project.id} AND install_instance_id = ${iid}`;
  return row;
}

describe('200', () => {
  it('when iOS sends its APNs token, then it is stored on the install', async () => {
    const { p, iid } = await installed();

    const res = await post(h(), 'update-push-token', {
      token: p.token,
      push_token: APNS,
      platform: 'IOS',
      install_instance_id: iid,
    });

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(SAVED);
    expect(await stored(p, iid)).toEqual({ push_token: APNS, push_token_updated_at: expect.any(Date) });
  });

  it('when the token refreshes, then the newest one replaces it', async () => {
    const { p, iid } = await installed();
    await post(h(), 'update-push-token', { token: p.token, push_token: 'old', install_instance_id: iid });

    await post(h(), 'update-push-token', { token: p.token, push_token: FCM, install_instance_id: iid });

    expect((await stored(p, iid))?.push_token).toBe(FCM);
  });

  it('when a second install of the project sends the same token, then it holds the token and the first holds none', async () => {
    const { p, iid: first } = await installed();
    const second = randomUUID();
    expect((await init(h(), p.token, { install_instance_id: second })).statusCode).toBe(202);
    await post(h(), 'update-push-token', { token: p.token, push_token: APNS, install_instance_id: first });

    const res = await post(h(), 'update-push-token', { token: p.token, push_token: APNS, install_instance_id: second });

    expect(res.json()).toEqual(SAVED);
    expect((await stored(p, second))?.push_token).toBe(APNS);
    expect((await stored(p, first))?.push_token).toBeNull();
  });

  it('when an install of another project sends the same token, then both installs keep it', async () => {
    const a = await installed();
    const b = await installed();
    await post(h(), 'update-push-token', { token: a.p.token, push_token: FCM, install_instance_id: a.iid });

    await post(h(), 'update-push-token', { token: b.p.token, push_token: FCM, install_instance_id: b.iid });

    expect((await stored(a.p, a.iid))?.push_token).toBe(FCM);
    expect((await stored(b.p, b.iid))?.push_token).toBe(FCM);
  });

  it('when the token is 4096 random characters, then it is stored', async () => {
    const { p, iid } = await installed();
    const long = randomBytes(3072).toString('base64');

    const res = await post(h(), 'update-push-token', { token: p.token, push_token: long, install_instance_id: iid });

    expect(res.json()).toEqual(SAVED);
    expect((await stored(p, iid))?.push_token).toBe(long);
  });

  it('when AND-1.1 calls the legacy updatePushToken with its map, then it is stored the same way', async () => {
    const { p, iid } = await installed();

    const res = await post(h(), 'updatePushToken', {
      token: p.token,
      platform: 'ANDROID',
      push_token: FCM,
      device_data: { device_id: 'abc' },
      install_instance_id: iid,
    });

    expect(res.json()).toEqual(SAVED);
    expect((await stored(p, iid))?.push_token).toBe(FCM);
  });
});

describe('400', () => {
  it.each<[string, Record<string, unknown>]>([
    ['push_token is missing', {}],
    ['push_token is ""', { push_token: '' }],
    ['push_token is blank', { push_token: '  ' }],
    ['push_token is a number', { push_token: 123 }],
    ['push_token is longer than 4096 characters', { push_token: 'x'.repeat(4097) }],
  ])('when %s, then 400 with its text and nothing stored', async (_case, body) => {
    const { p, iid } = await installed();

    const res = await post(h(), 'update-push-token', { token: p.token, install_instance_id: iid, ...body });

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(BAD_TOKEN_FIELD);
    expect((await stored(p, iid))?.push_token).toBeNull();
  });

  it('when the install never called init, then 400 Install not found.', async () => {
    const p = await newProject(h().deps);
    const res = await post(h(), 'update-push-token', {
      token: p.token,
      push_token: APNS,
      install_instance_id: randomUUID(),
    });
    expect(res.json()).toEqual({ msg: 'Install not found. Call init first.', status: 400 });
  });

  it('when an unknown install sends a token another install holds, then 400 and the holder keeps it', async () => {
    const { p, iid } = await installed();
    await post(h(), 'update-push-token', { token: p.token, push_token: APNS, install_instance_id: iid });

    const res = await post(h(), 'update-push-token', {
      token: p.token,
      push_token: APNS,
      install_instance_id: randomUUID(),
    });

    expect(res.statusCode).toBe(400);
    expect((await stored(p, iid))?.push_token).toBe(APNS);
  });

  it("when the install belongs to another project, then 400 and the other project's install is untouched", async () => {
    const { p: owner, iid } = await installed();
    const other = await newProject(h().deps);

    const res = await post(h(), 'update-push-token', {
      token: other.token,
      push_token: APNS,
      install_instance_id: iid,
    });

    expect(res.statusCode).toBe(400);
    expect((await stored(owner, iid))?.push_token).toBeNull();
  });

  it.each(['update-push-token', 'updatePushToken'])('when %s gets a wrong token, then 400', async (path) => {
    const res = await post(h(), path, { token: 'pt_wrong', push_token: APNS, install_instance_id: 'x' });
    expect(res.json()).toEqual({ msg: 'Invalid or missing project token.', status: 400 });
  });

  it('when install_instance_id is missing, then 400 with its text', async () => {
    const p = await newProject(h().deps);
    const res = await post(h(), 'update-push-token', { token: p.token, push_token: APNS });
    expect(res.json()).toEqual({
      msg: 'install_instance_id must be a non-empty string of at most 128 characters.',
      status: 400,
    });
  });
});
