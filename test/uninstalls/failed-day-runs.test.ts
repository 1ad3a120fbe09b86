// Uninstall tracking's "3 consecutive uninstalled days" (product-notes "Uninstall tracking"; README
// "Uninstall tracking") against what happens between failed pushes: the app used on a day between
// them (init, capture-event, capture-payment, also of a user not registered through trigger; not a
// server-side call), passes that are not 24 h apart (a `uninstalls run` at 23:30 UTC, then the 03:00
// cron), a day without a pass, the detection day in the project's time zone and an organic install.
// Fake push senders only (test/support/fake-push.ts).
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { PushResult, PushSender } from '../../src/domain/uninstalls/push-sender.ts';
import { attribute, attributedInstall, flushFacts, init, post, useClientHarness } from '../support/client.ts';
import { signUp } from '../support/commerce.ts';
import { type FakePush, fakePushSender } from '../support/fake-push.ts';
import { newProject, type TestProject } from '../support/harness.ts';
import { passAt, savePushToken, uninstallState } from '../support/uninstalls.ts';

const h = useClientHarness();
const DAY = 86_400_000;
const HOUR = 3_600_000;
const realNow = Date.now;
let dayOffset = 2000;

afterEach(() => {
  h().deps.now = realNow;
});

/** Simulated days, each later than any earlier test's, starting at 03:00 UTC of a day. */
function days() {
  const d = new Date(realNow() + dayOffset * DAY);
  dayOffset += 20;
  d.setUTCHours(3, 0, 0, 0);
  return d.getTime();
}

const state = (p: TestProject, iid: string) => uninstallState(h().deps, p, iid);

async function uninstallRows(p: TestProject) {
  await flushFacts(h());
  const rs = await h().deps.ch.query({
    query: `SELECT install_instance_id, campaign_id, toString(day) AS day, failed_days FROM uninstalls
      WHERE project_id = {p:String} ORDER BY ts`,
    format: 'JSONEachRow',
    query_params: { p: p.project.id },
  });
  return rs.json<{ install_instance_id: string; campaign_id: number; day: string; failed_days: number }>();
}

async function withToken(opts: { timezone?: string } = {}) {
  const p = await newProject(h().deps, opts);
  const { campaign, iid } = await attributedInstall(h(), p);
  const token = `fcm:${randomUUID()}`;
  expect((await savePushToken(h(), p, iid, token)).statusCode).toBe(200);
  return { p, campaign, iid, token };
}

async function passOn(p: TestProject, atMs: number, fcm: PushSender) {
  return passAt(h(), p, atMs, { FCM: fcm });
}

/** An install whose token failed the passes at base and base + 1 day; the app is used at noon of day 2. */
async function twoFailedDaysThenUsed(use: (p: TestProject, iid: string) => Promise<{ statusCode: number }>) {
  const { p, iid, token } = await withToken();
  await signUp(h(), p, iid, `u-${randomUUID()}`);
  const base = days();
  const fcm = fakePushSender('FCM');
  fcm.answers.set(token, 'unregistered');
  await passOn(p, base, fcm);
  await passOn(p, base + DAY, fcm);
  expect(await state(p, iid)).toEqual({ push_failures: 2, uninstalled: false });
  h().deps.now = () => base + DAY + 9 * HOUR;
  expect((await use(p, iid)).statusCode).toBeLessThan(300);
  return { p, iid, base, fcm };
}

const openApp = (p: TestProject, iid: string) => init(h(), p.token, { install_instance_id: iid });
const sendEvent = (p: TestProject, iid: string) =>
  post(h(), 'capture-event', { token: p.token, platform: 'ANDROID', install_instance_id: iid, event_name: 'open' });
const sendPayment = (p: TestProject, iid: string) =>
  post(h(), 'capture-payment', {
    token: p.token,
    platform: 'ANDROID',
    install_instance_id: iid,
    amount: 4.99,
    payment_id: `pay-${randomUUID()}`,
  });

// Both come from inside the app: a token refresh (product notes: "setPushToken on every token
// refresh") and a sign-up or login.
const refreshToken = async (p: TestProject, iid: string) => {
  const [row] = await h().deps.sql<{ push_token: string }[]>`
    SELECT push_token FROM installs WHERE project_id = ${p.project.id} AND install_instance_id = ${iid}`;
  return savePushToken(h(), p, iid, row?.push_token ?? '');
};
const logIn = (p: TestProject, iid: string) =>
  post(h(), 'trigger', {
    token: p.token,
    platform: 'ANDROID',
    install_instance_id: iid,
    user_data: { id: `login-${randomUUID()}` },
    data: { device_data: {} },
  });

describe('app activity between failed days', () => {
  it.each([
    ['opens (init)', openApp],
    ['sends an event', sendEvent],
    ['sends a payment', sendPayment],
    ['refreshes its push token (the same token)', refreshToken],
    ['signs a user up or in (trigger)', logIn],
  ])(
    'when the app %s after 2 failed days and the next push fails, then it is not counted as uninstalled',
    async (_n, use) => {
      const { p, iid, base, fcm } = await twoFailedDaysThenUsed(use);

      await passOn(p, base + 2 * DAY, fcm);

      // "3 consecutive uninstalled days": the app was in use between the failed pushes.
      expect(await state(p, iid)).toEqual({ push_failures: 1, uninstalled: false });
      expect(await uninstallRows(p)).toEqual([]);
    },
  );

  it('when the app was opened between failed days, then three more failed days after it are an uninstall', async () => {
    const { p, iid, base, fcm } = await twoFailedDaysThenUsed(openApp);

    for (const d of [2, 3]) {
      await passOn(p, base + d * DAY, fcm);
    }
    expect(await state(p, iid)).toEqual({ push_failures: 2, uninstalled: false });
    await passOn(p, base + 4 * DAY, fcm);

    expect(await state(p, iid)).toEqual({ push_failures: 3, uninstalled: true });
    expect(await uninstallRows(p)).toEqual([
      { install_instance_id: iid, campaign_id: expect.any(Number), day: expect.any(String), failed_days: 3 },
    ]);
  });

  it('when a user not registered through trigger sends an event after 2 failed days, then the count restarts', async () => {
    const { p, iid, token } = await withToken();
    const base = days();
    const fcm = fakePushSender('FCM');
    fcm.answers.set(token, 'unregistered');
    await passOn(p, base, fcm);
    await passOn(p, base + DAY, fcm);
    h().deps.now = () => base + DAY + 9 * HOUR;

    const ev = await sendEvent(p, iid);
    await passOn(p, base + 2 * DAY, fcm);

    expect(ev.statusCode).toBe(200);
    expect(await state(p, iid)).toEqual({ push_failures: 1, uninstalled: false });
  });

  it('when the backend captures a payment after 2 failed days, then the third failed day is an uninstall', async () => {
    const { p, iid, token } = await withToken();
    const userId = `u-${randomUUID()}`;
    await signUp(h(), p, iid, userId);
    const base = days();
    const fcm = fakePushSender('FCM');
    fcm.answers.set(token, 'unregistered');
    await passOn(p, base, fcm);
    await passOn(p, base + DAY, fcm);
    h().deps.now = () => base + DAY + 9 * HOUR;

    const res = await h().app.inject({
      method: 'POST',
      url: '/api/v1/capture-payment',
      headers: p.headers,
      payload: { user_id: userId, amount: 9.99, type: 'SUBSCRIPTION_RENEWED', payment_id: `r-${randomUUID()}` },
    });
    await passOn(p, base + 2 * DAY, fcm);

    // A server-side call comes from the customer's backend, not the device: it proves no use.
    expect(res.statusCode).toBe(201);
    expect(await state(p, iid)).toEqual({ push_failures: 3, uninstalled: true });
  });

  it('when the app is used before any failed push, then the failed days count from the first one', async () => {
    const { p, iid, token } = await withToken();
    const base = days();
    h().deps.now = () => base - 2 * HOUR;
    expect((await openApp(p, iid)).statusCode).toBe(202);
    const fcm = fakePushSender('FCM');
    fcm.answers.set(token, 'unregistered');

    for (const d of [0, 1, 2]) {
      await passOn(p, base + d * DAY, fcm);
    }

    expect(await state(p, iid)).toEqual({ push_failures: 3, uninstalled: true });
  });
});

describe('the detection day and campaign in reporting', () => {
  it.each([
    ['America/Los_Angeles', -1],
    ['Asia/Kolkata', 0],
    ['Pacific/Kiritimati', 0],
  ])(
    'when the project is in %s, then the uninstall counts on the project-local day of the third push',
    async (tz, shift) => {
      const { p, campaign, token } = await withToken({ timezone: tz });
      const base = days();
      const fcm = fakePushSender('FCM');
      fcm.answers.set(token, 'unregistered');

      for (const d of [0, 1, 2]) {
        await passOn(p, base + d * DAY, fcm);
      }

      const third = new Date(base + 2 * DAY + shift * DAY).toISOString().slice(0, 10);
      const rows = await uninstallRows(p);
      expect(rows).toEqual([
        { install_instance_id: expect.any(String), campaign_id: campaign.id, day: third, failed_days: 3 },
      ]);
      h().deps.now = realNow;
      const report = await h().app.inject({
        method: 'GET',
        url: `/api/v1/reporting/campaigns?from=${third}&to=${third}`,
        headers: p.headers,
      });
      expect(report.statusCode).toBe(200);
      expect(report.json().data.campaigns).toMatchObject([{ id: campaign.id, uninstalls: '1' }]);
    },
  );

  it('when an organic install is uninstalled, then the fact has campaign 0 and no campaign counts it', async () => {
    const p = await newProject(h().deps);
    const iid = randomUUID();
    expect((await init(h(), p.token, { install_instance_id: iid })).statusCode).toBe(202);
    await attribute(h(), p, iid);
    const token = `fcm:${randomUUID()}`;
    expect((await savePushToken(h(), p, iid, token)).statusCode).toBe(200);
    const base = days();
    const fcm = fakePushSender('FCM');
    fcm.answers.set(token, 'unregistered');

    for (const d of [0, 1, 2]) {
      await passOn(p, base + d * DAY, fcm);
    }

    expect(await uninstallRows(p)).toEqual([
      { install_instance_id: iid, campaign_id: 0, day: expect.any(String), failed_days: 3 },
    ]);
  });
});

describe('passes that are not one a day', () => {
  async function failOn(atMsList: number[], answers: PushResult[] = []) {
    const { p, iid, token } = await withToken();
    const fcm: FakePush = fakePushSender('FCM');
    for (const [i, at] of atMsList.entries()) {
      fcm.answers.set(token, answers[i] ?? 'unregistered');
      await passOn(p, at, fcm);
    }
    return { p, iid, fcm, token };
  }

  it('when the worker was down for a day between failed pushes, then the failed days still add up (gap is neutral)', async () => {
    const base = days();
    const { p, iid } = await failOn([base, base + DAY, base + 3 * DAY]);

    expect(await state(p, iid)).toEqual({ push_failures: 3, uninstalled: true });
  });

  it('when `uninstalls run` ran at 23:30 UTC and the cron at 03:00 UTC, then an uninstall needs 3 days, not 28 hours', async () => {
    const base = days();
    // 23:30 UTC of the day before `base`, then the 03:00 cron on the next two days.
    const first = base - 3.5 * HOUR;
    const { p, iid, fcm, token } = await failOn([first, base, base + DAY]);

    // 03:00 came 3.5 h after the first failed push: that day is pushed but not counted.
    expect(await state(p, iid)).toEqual({ push_failures: 2, uninstalled: false });
    expect(fcm.sent.filter((t) => t.token === token)).toHaveLength(3);
    await passOn(p, base + 2 * DAY, fcm);
    expect(await state(p, iid)).toEqual({ push_failures: 3, uninstalled: true });
  });

  it('when failed pushes come 20 hours apart on three UTC days, then they count', async () => {
    const base = days();
    // 23:00 UTC, then 19:00 and 15:00 UTC of the next two days.
    const { p, iid } = await failOn([base - 4 * HOUR, base + 16 * HOUR, base + 36 * HOUR]);

    expect(await state(p, iid)).toEqual({ push_failures: 3, uninstalled: true });
  });

  it('when a failed push comes 19 hours after a delivered one, then it counts nothing but its day is pushed', async () => {
    const base = days();
    // 23:30 UTC, then 18:30 UTC of the next day.
    const second = base + 15.5 * HOUR;
    const { p, iid, fcm, token } = await failOn([base - 3.5 * HOUR, second], ['delivered', 'unregistered']);

    expect(await state(p, iid)).toEqual({ push_failures: 0, uninstalled: false });
    await passOn(p, second + HOUR, fcm);
    expect(fcm.sent.filter((t) => t.token === token)).toHaveLength(2);
  });
});
