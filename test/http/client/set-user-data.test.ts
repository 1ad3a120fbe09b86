// POST /api/client/set-user-data (spec: "update user details after signup; does not replace
// trigger"; response not shown. real-clients §4.4: iOS sends no platform, both SDKs send a top-level
// device_data). Ours: 200 {msg, status, data: {updated}}; the user is user_data.id, else the user
// the install is tied to; with no such user nothing changes and the answer is still 200 with
// updated:false (SDKs ignore the body; an error would throw into React Native apps).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { attribute, flushFacts, init, post, randomIp, useClientHarness } from '../../support/client.ts';
import { newProject, type TestProject } from '../../support/harness.ts';
import { appUsers, installUser, signupFacts, trigger } from '../../support/users.ts';

const h = useClientHarness();

const UPDATED = { msg: 'User data updated successfully', status: 200, data: { updated: true } };
const NO_USER = {
  msg: 'No registered user found for this request; nothing was updated. Call trigger first.',
  status: 200,
  data: { updated: false },
};

async function registered(p: TestProject, userId = 'u1'): Promise<string> {
  const iid = randomUUID();
  await init(h(), p.token, { install_instance_id: iid }, randomIp());
  await attribute(h(), p, iid);
  const res = await trigger(h(), p.token, iid, userId, {
    user_data: { id: userId, name: 'Asha', email: 'asha@example.com', plan: 'free', ref: 'r1' },
    data: { device_data: { brand: 'samsung' } },
  });
  expect(res.statusCode).toBe(200);
  return iid;
}

function setUserData(token: string, body: Record<string, unknown>) {
  return post(h(), 'set-user-data', { token, ...body });
}

describe('200', () => {
  it('when iOS updates details without platform, then name/phone/extras/device_data change and the rest stays', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = await registered(p);
    const [before] = await appUsers(deps, p);

    const res = await setUserData(p.token, {
      user_data: { id: 'u1', name: 'Asha K', phone: '+911234567890', plan: 'pro', braze_device_id: 'bz1' },
      device_data: { device: 'iPhone', brand: 'Apple' },
      install_instance_id: iid,
    });

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(UPDATED);
    expect(await appUsers(deps, p)).toEqual([
      {
        ...before,
        name: 'Asha K',
        email: 'asha@example.com',
        phone: '+911234567890',
        user_data: { plan: 'pro', ref: 'r1', braze_device_id: 'bz1' },
        device_data: { device: 'iPhone', brand: 'Apple' },
      },
    ]);
  });

  it('when user_data has no id, then the user tied to the install is updated', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = await registered(p, 'tied-user');

    const res = await setUserData(p.token, {
      user_data: { email: 'new@example.com' },
      platform: 'ANDROID',
      install_instance_id: iid,
    });

    expect(res.json()).toEqual(UPDATED);
    expect((await appUsers(deps, p))[0]).toMatchObject({
      user_id: 'tied-user',
      email: 'new@example.com',
      name: 'Asha',
    });
  });

  it('when it runs, then it replaces nothing of trigger: no new user, no sign-up, the install keeps its user', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = await registered(p);

    await setUserData(p.token, { user_data: { id: 'u1', name: 'X' }, install_instance_id: iid });
    await flushFacts(h());

    expect((await appUsers(deps, p)).map((u) => [u.user_id, u.install_instance_id])).toEqual([['u1', iid]]);
    expect(await signupFacts(deps, p)).toHaveLength(1);
    expect(await installUser(deps, p, iid)).toEqual({ user_id: 'u1', is_reinstall: false });
  });

  it('when empty strings come for name and email (RN bridge nulls), then the stored values stay', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = await registered(p);

    const res = await setUserData(p.token, { user_data: { id: 'u1', name: '', email: '' }, install_instance_id: iid });

    expect(res.json()).toEqual(UPDATED);
    expect((await appUsers(deps, p))[0]).toMatchObject({ name: 'Asha', email: 'asha@example.com' });
  });

  it('when the user id was never registered through trigger, then 200 updated:false and no user appears', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = await registered(p);

    const res = await setUserData(p.token, { user_data: { id: 'stranger', name: 'S' }, install_instance_id: iid });

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(NO_USER);
    expect((await appUsers(deps, p)).map((u) => u.user_id)).toEqual(['u1']);
  });

  it('when no id is sent and the install has no user (or is unknown), then 200 updated:false', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = randomUUID();
    await init(h(), p.token, { install_instance_id: iid }, randomIp());

    const untied = await setUserData(p.token, { user_data: { name: 'S' }, install_instance_id: iid });
    const unknown = await setUserData(p.token, { user_data: { name: 'S' }, install_instance_id: randomUUID() });

    expect(untied.json()).toEqual(NO_USER);
    expect(unknown.json()).toEqual(NO_USER);
    expect(await appUsers(deps, p)).toEqual([]);
  });

  it("when project B's token names project A's user, then A's user is untouched", async () => {
    const { deps } = h();
    const a = await newProject(deps);
    const b = await newProject(deps);
    const iid = await registered(a, 'shared-id');

    const res = await setUserData(b.token, {
      user_data: { id: 'shared-id', name: 'Mallory' },
      install_instance_id: iid,
    });

    expect(res.json()).toEqual(NO_USER);
    expect((await appUsers(deps, a))[0]).toMatchObject({ user_id: 'shared-id', name: 'Asha' });
  });
});

describe('"" for a stored field (RN sends "" for a JS null)', () => {
  // Merged as sent, "" erased a stored third-party id: attributed-users then returned "".
  it('when set-user-data sends "" for fields it stored, then they are kept, as name and email are', async () => {
    const p = await newProject(h().deps);
    const iid = await registered(p, 'rn-u');

    const res = await setUserData(p.token, {
      platform: 'ANDROID',
      install_instance_id: iid,
      user_data: { id: 'rn-u', name: 'New', email: '', plan: '', ref: null, mixpanel_distinct_id: '' },
      device_data: {},
    });

    expect(res.json()).toEqual(UPDATED);
    const [u] = await appUsers(h().deps, p);
    expect(u).toMatchObject({ name: 'New', email: 'asha@example.com' });
    expect(u?.user_data).toEqual({ plan: 'free', ref: 'r1', mixpanel_distinct_id: '' });
  });

  it('when a login trigger sends "" for a stored field, then it is kept; a new value replaces it', async () => {
    const p = await newProject(h().deps);
    const iid = await registered(p, 'rn-v');

    await trigger(h(), p.token, iid, 'rn-v', { user_data: { id: 'rn-v', plan: '', ref: 'r2' } });

    const [u] = await appUsers(h().deps, p);
    expect(u?.user_data).toEqual({ plan: 'free', ref: 'r2' });
  });
});

describe('400', () => {
  it('when the token is missing, then 400', async () => {
    const res = await post(h(), 'set-user-data', { user_data: { id: 'u1' }, install_instance_id: randomUUID() });

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ msg: 'Invalid or missing project token.', status: 400 });
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      'no install_instance_id',
      { user_data: { id: 'u1' } },
      'install_instance_id must be a non-empty string of at most 128 characters.',
    ],
    ['no user_data', { install_instance_id: 'i1' }, 'user_data must be an object.'],
    [
      'an object id',
      { install_instance_id: 'i1', user_data: { id: { x: 1 } } },
      'user_data.id must be a non-empty string of at most 256 characters.',
    ],
    [
      'an array name',
      { install_instance_id: 'i1', user_data: { id: 'u1', name: ['a'] } },
      'user_data.name must be a string.',
    ],
  ])('when the body has %s, then 400 with the exact text', async (_case, body, msg) => {
    const { deps } = h();
    const p = await newProject(deps);

    const res = await setUserData(p.token, body);

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ msg, status: 400 });
  });
});
