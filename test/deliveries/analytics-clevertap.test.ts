// CleverTap (Upload User Profiles, POST {region host}/1/upload): a user's install attribution goes as
// profileData of the profile named by the clevertap_id the app stored on its install
// (/api/client/integrations) as objectId, else by the user id as identity, with the account id and
// passcode as headers. The answer's `unprocessed` records, named by their objectId / identity, end
// dead alone with CleverTap's reason (the others were processed: sent); code 555, CleverTap's own
// failure, goes again later; records it cannot name, or a 401, keep the whole batch dead.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attributedInstall, post } from '../support/client.ts';
import { attemptRows, deliverAt, deliveryEnv, deliveryRows } from '../support/deliveries.ts';
import { CLEVERTAP_ACCOUNT_ID, connectVendor, FakeAnalytics, signUp, VENDOR_KEYS } from '../support/fake-analytics.ts';
import { newProject, type TestProject, useHarness } from '../support/harness.ts';

const fake = new FakeAnalytics();
const env = deliveryEnv();
beforeAll(async () => {
  env.ANALYTICS_BASE_URL = await fake.start();
});
afterAll(() => fake.stop());
const h = useHarness({ env });

async function clevertapProject() {
  const p = await newProject(h().deps);
  await connectVendor(h().deps, p, 'clevertap');
  const before = fake.hitsOf('clevertap').length;
  return { p, newHits: () => fake.hitsOf('clevertap').slice(before) };
}

const storeClevertapId = (p: TestProject, iid: string, clevertapId: string) =>
  post(h(), 'integrations', {
    token: p.token,
    platform: 'ANDROID',
    install_instance_id: iid,
    integration_info: { clevertap_id: clevertapId },
  });

type CtRecord = {
  objectId?: string;
  identity?: string;
  type: string;
  ts: number;
  profileData: Record<string, unknown>;
};
const records = (body: string | undefined) => (JSON.parse(body ?? '{}') as { d: CtRecord[] }).d;

/** A project connected to CleverTap with `n` signed-up users (no clevertap_id), queued in this order. */
async function usersOf(n: number) {
  const { p, newHits } = await clevertapProject();
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = `ct-user-${i}-${randomUUID().slice(0, 8)}`;
    const { iid } = await attributedInstall(h(), p);
    await signUp(h(), p, iid, { id });
    ids.push(id);
  }
  const rows = async () => (await deliveryRows(h().deps, p)).map((r) => [r.status, r.attempts, r.last_error] as const);
  return { p, ids, newHits, rows };
}

const unprocessed = (identity: string, code: number, error: string) => ({
  status: 'fail',
  code,
  error,
  record: { identity, type: 'profile', profileData: {} },
});

describe('what CleverTap receives', () => {
  it('when a user whose install stored a clevertap_id signs up, then CleverTap gets that profile by objectId with the documented request', async () => {
    const { p, newHits } = await clevertapProject();
    const longName = 'é'.repeat(300); // 600 bytes: CleverTap keeps 512
    const { campaign, iid } = await attributedInstall(h(), p, { name: longName });
    expect((await storeClevertapId(p, iid, '__g0a1b2c3d4e5f')).statusCode).toBe(200);
    const before = Math.floor(Date.now() / 1000);
    await signUp(h(), p, iid, { id: `ct-${randomUUID()}` });

    const out = await deliverAt(h().deps, p, 'analytics:clevertap');

    expect(out).toMatchObject({ claimed: 1, sent: 1, dead: 0, retry: false });
    const [hit] = newHits();
    expect(hit?.path).toBe('/1/upload');
    expect(hit?.headers['x-clevertap-account-id']).toBe(CLEVERTAP_ACCOUNT_ID);
    expect(hit?.headers['x-clevertap-passcode']).toBe(VENDOR_KEYS.clevertap);
    expect(hit?.headers['content-type']).toBe('application/json; charset=utf-8');
    const [record, ...others] = records(hit?.body);
    expect(others).toEqual([]);
    expect(record).toEqual({
      objectId: '__g0a1b2c3d4e5f',
      type: 'profile',
      ts: expect.any(Number),
      profileData: expect.any(Object),
    });
    expect(record?.ts).toBeGreaterThanOrEqual(before);
    expect(record?.profileData).toMatchObject({
      attribution_organic: false,
      attribution_network: 'META',
      attribution_campaign_name: 'é'.repeat(256),
      attribution_campaign_id: campaign.displayId,
      attribution_ad_creative_id: 'cr1',
    });
  });

  it('when the install stored no clevertap_id, then the user id goes as identity', async () => {
    const { p, newHits } = await clevertapProject();
    const { iid } = await attributedInstall(h(), p);
    const userId = `ct-${randomUUID()}`;
    await signUp(h(), p, iid, { id: userId });

    await deliverAt(h().deps, p, 'analytics:clevertap');

    const [record] = records(newHits()[0]?.body);
    expect(record).toMatchObject({ identity: userId, type: 'profile' });
    expect(record).not.toHaveProperty('objectId');
  });

  it('when the clevertap_id arrives after the sign-up, then the profile is sent again by objectId, once', async () => {
    const { p, newHits } = await clevertapProject();
    const { iid } = await attributedInstall(h(), p);
    const userId = `ct-${randomUUID()}`;
    await signUp(h(), p, iid, { id: userId });
    await deliverAt(h().deps, p, 'analytics:clevertap');

    expect((await storeClevertapId(p, iid, '__late0a1b2c3d')).statusCode).toBe(200);
    expect((await storeClevertapId(p, iid, '__late0a1b2c3d')).statusCode).toBe(200); // the SDK again
    const out = await deliverAt(h().deps, p, 'analytics:clevertap');

    expect(out).toMatchObject({ claimed: 1, sent: 1 });
    expect(newHits().map((hit) => records(hit.body)[0])).toMatchObject([
      { identity: userId },
      { objectId: '__late0a1b2c3d', type: 'profile' },
    ]);
  });

  it('when an install that registered no user stores a clevertap_id, then nothing is queued', async () => {
    const { p } = await clevertapProject();
    const { iid } = await attributedInstall(h(), p);

    expect((await storeClevertapId(p, iid, '__nouser0a1b2c')).statusCode).toBe(200);

    expect(await deliveryRows(h().deps, p)).toEqual([]);
  });
});

describe('records CleverTap names in unprocessed', () => {
  it('when CleverTap answers partial naming one record, then that user is dead with its reason and the others are sent, in one request', async () => {
    const u = await usersOf(3);
    const answer = {
      status: 'partial',
      processed: 2,
      unprocessed: [unprocessed(u.ids[1] ?? '', 523, 'Missing identity')],
    };
    fake.answerNext('clevertap', 1, 200, JSON.stringify(answer));

    const out = await deliverAt(h().deps, u.p, 'analytics:clevertap');

    expect(out).toMatchObject({ claimed: 3, sent: 2, dead: 1, retry: false });
    expect(await u.rows()).toEqual([
      ['sent', 1, null],
      ['dead', 1, 'HTTP 200: CleverTap refused this user: Missing identity (code 523)'],
      ['sent', 1, null],
    ]);
    expect(u.newHits()).toHaveLength(1);
    const log = (await attemptRows(h().deps, u.p)).map((a) => [a.outcome, a.http_status, a.events]);
    expect(log.sort()).toEqual([
      ['dead', 200, 1],
      ['sent', 200, 2],
    ]);
  });

  it("when a record fails with CleverTap's server error (555), then only that user goes again later and the others are sent", async () => {
    const u = await usersOf(2);
    const answer = {
      status: 'partial',
      processed: 1,
      unprocessed: [unprocessed(u.ids[0] ?? '', 555, 'Miscellaneous server error')],
    };
    fake.answerNext('clevertap', 1, 200, JSON.stringify(answer));

    const first = await deliverAt(h().deps, u.p, 'analytics:clevertap');
    const second = await deliverAt(h().deps, u.p, 'analytics:clevertap', Date.now() + 60_000);

    expect(first).toMatchObject({ claimed: 2, sent: 1, dead: 0, retry: true });
    expect(second).toMatchObject({ claimed: 1, sent: 1 });
    expect(await u.rows()).toEqual([
      ['sent', 2, null],
      ['sent', 1, null],
    ]);
    expect(u.newHits().map((x) => records(x.body).map((r) => r.identity))).toEqual([u.ids, [u.ids[0]]]);
  });

  it('when an unprocessed record names nobody sent, then the whole batch is dead with the reason', async () => {
    const u = await usersOf(2);
    const answer = { status: 'fail', processed: 0, unprocessed: [unprocessed('someone-else', 515, 'Email invalid')] };
    fake.answerNext('clevertap', 1, 200, JSON.stringify(answer));

    const out = await deliverAt(h().deps, u.p, 'analytics:clevertap');

    expect(out).toMatchObject({ claimed: 2, sent: 0, dead: 2 });
    const reason = 'HTTP 200: CleverTap refused the batch: Email invalid (unprocessed: 1)';
    expect(await u.rows()).toEqual([
      ['dead', 1, reason],
      ['dead', 1, reason],
    ]);
  });

  it('when CleverTap answers 401 (a wrong passcode or region), then the whole batch is dead', async () => {
    const u = await usersOf(2);
    fake.answerNext('clevertap', 1, 401, '{"status":"fail","error":"Invalid Credentials","code":401}');

    const out = await deliverAt(h().deps, u.p, 'analytics:clevertap');

    expect(out).toMatchObject({ claimed: 2, sent: 0, dead: 2 });
    expect((await u.rows()).map((r) => r[0])).toEqual(['dead', 'dead']);
  });
});
