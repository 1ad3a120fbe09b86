// POST /api/client/customer-user-id (real-clients §4.11: iOS 4.x / Android 4.0 setCustomerUserId,
// {token, user_id, platform, install_instance_id}; not in the spec, the SDKs ignore the answer).
// Ours: 200 {msg, status, data: {user_id}}. It ties the install to the user id (with trigger's
// reinstall rule) but neither creates the user nor records a sign-up: trigger alone registers users,
// so a later trigger still counts the sign-up once, and an earlier one is never counted twice.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { attribute, flushFacts, init, post, randomIp, useClientHarness } from '../../support/client.ts';
import { newProject, type TestProject } from '../../support/harness.ts';
import { appUsers, installUser, signupFacts, trigger } from '../../support/users.ts';

const h = useClientHarness();

const NOT_FOUND = { msg: 'Install not found. Call init first.', status: 400 };
const USER_ID_REQUIRED = { msg: 'user_id must be a non-empty string of at most 256 characters.', status: 400 };

async function install(p: TestProject): Promise<string> {
  const iid = randomUUID();
  await init(h(), p.token, { install_instance_id: iid }, randomIp());
  await attribute(h(), p, iid);
  return iid;
}

function setCustomerUserId(token: string, iid: string, userId: unknown) {
  return post(h(), 'customer-user-id', { token, user_id: userId, platform: 'IOS', install_instance_id: iid });
}

describe('200', () => {
  it('when an install sets its customer user id, then the install is tied and no user or sign-up is created', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = await install(p);

    const res = await setCustomerUserId(p.token, iid, 'cu-1');

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ msg: 'Customer user id set successfully', status: 200, data: { user_id: 'cu-1' } });
    expect(await installUser(deps, p, iid)).toEqual({ user_id: 'cu-1', is_reinstall: false });
    expect(await appUsers(deps, p)).toEqual([]);
    await flushFacts(h());
    expect(await signupFacts(deps, p)).toEqual([]);
  });

  it('when trigger follows customer-user-id, then the sign-up is still recorded once', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = await install(p);
    await setCustomerUserId(p.token, iid, 'cu-1');

    const res = await trigger(h(), p.token, iid, 'cu-1');
    await setCustomerUserId(p.token, iid, 'cu-1');
    await flushFacts(h());

    expect(res.json().data).toEqual({ deeplink: null, trigger: true });
    expect((await appUsers(deps, p)).map((u) => u.user_id)).toEqual(['cu-1']);
    expect((await signupFacts(deps, p)).map((f) => f.user_id)).toEqual(['cu-1']);
  });

  it('when customer-user-id follows trigger, then nothing is counted again', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = await install(p);
    await trigger(h(), p.token, iid, 'cu-1');

    const res = await setCustomerUserId(p.token, iid, 'cu-1');
    await flushFacts(h());

    expect(res.statusCode).toBe(200);
    expect(await signupFacts(deps, p)).toHaveLength(1);
  });

  it('when the user id already belongs to an earlier install, then this install is marked a reinstall', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const first = await install(p);
    await setCustomerUserId(p.token, first, 'cu-1');
    const second = await install(p);

    await setCustomerUserId(p.token, second, 'cu-1');

    expect(await installUser(deps, p, first)).toEqual({ user_id: 'cu-1', is_reinstall: false });
    expect(await installUser(deps, p, second)).toEqual({ user_id: 'cu-1', is_reinstall: true });
  });

  it('when user_id is a number, then it is stored as its string', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = await install(p);

    const res = await setCustomerUserId(p.token, iid, 987);

    expect(res.json().data).toEqual({ user_id: '987' });
    expect(await installUser(deps, p, iid)).toEqual({ user_id: '987', is_reinstall: false });
  });
});

describe('400', () => {
  it('when the install is unknown, then 400 Install not found.', async () => {
    const p = await newProject(h().deps);

    const res = await setCustomerUserId(p.token, randomUUID(), 'cu-1');

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(NOT_FOUND);
  });

  it("when project B's token names project A's install, then 400 and A's install stays untied", async () => {
    const { deps } = h();
    const a = await newProject(deps);
    const b = await newProject(deps);
    const iid = await install(a);

    const res = await setCustomerUserId(b.token, iid, 'intruder');

    expect(res.json()).toEqual(NOT_FOUND);
    expect(await installUser(deps, a, iid)).toEqual({ user_id: null, is_reinstall: false });
  });

  it.each<[string, unknown]>([
    ['absent', undefined],
    ['null', null],
    ['empty', ''],
    ['blank', '  '],
    ['an object', { id: 1 }],
    ['257 characters', 'x'.repeat(257)],
  ])('when user_id is %s, then 400 with the exact text', async (_case, userId) => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = await install(p);

    const res = await setCustomerUserId(p.token, iid, userId);

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(USER_ID_REQUIRED);
    expect(await installUser(deps, p, iid)).toEqual({ user_id: null, is_reinstall: false });
  });

  it('when the token is wrong, then 400', async () => {
    const res = await setCustomerUserId('pt_nope', randomUUID(), 'cu-1');

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ msg: 'Invalid or missing project token.', status: 400 });
  });
});
