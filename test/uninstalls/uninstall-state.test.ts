// Uninstall tracking state machine (product-notes: a daily silent push; 3 consecutive "uninstalled"
// days count as an uninstall) with a fake push service: tokens that fail 1, 2 and 3 days,
// recovery, reruns of one day, service errors, the uninstall fact's campaign and reporting count,
// and the reinstall a later init or event records.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { PushResult } from '../../src/domain/uninstalls/push-sender.ts';
import { attributedInstall, flushFacts, init, installEvents, post, useClientHarness } from '../support/client.ts';
import { signUp } from '../support/commerce.ts';
import { type FakePush, fakePushSender } from '../support/fake-push.ts';
import { newProject, type TestProject } from '../support/harness.ts';
import { passAt, savePushToken, uninstallState } from '../support/uninstalls.ts';

const h = useClientHarness();
const DAY = 86_400_000;
const realNow = Date.now;
let dayOffset = 0;

afterEach(() => {
  h().deps.now = realNow;
});

/** Runs the pass on a simulated day, each later than any earlier test's days. */
async function passOn(day: number, fcm: FakePush, p: TestProject, apns?: FakePush) {
  return passAt(h(), p, realNow() + (dayOffset + day) * DAY, { FCM: fcm, ...(apns ? { APNS: apns } : {}) });
}

async function withToken(token = `fcm:${randomUUID()}`) {
  const p = await newProject(h().deps);
  const { campaign, iid } = await attributedInstall(h(), p);
  expect((await savePushToken(h(), p, iid, token)).statusCode).toBe(200);
  dayOffset += 10;
  return { p, campaign, iid, token };
}

const state = (p: TestProject, iid: string) => uninstallState(h().deps, p, iid);

async function uninstallFacts(p: TestProject) {
  await flushFacts(h());
  const rs = await h().deps.ch.query({
    query: `SELECT install_instance_id, campaign_id, display_id, network, platform, provider, failed_days
      FROM uninstalls WHERE project_id = {p:String}`,
    format: 'JSONEachRow',
    query_params: { p: p.project.id },
  });
  return rs.json();
}

async function reportedUninstalls(p: TestProject): Promise<number> {
  const rs = await h().deps.ch.query({
    query: 'SELECT toUInt32(sum(uninstalls)) AS n FROM campaign_daily WHERE project_id = {p:String}',
    format: 'JSONEachRow',
    query_params: { p: p.project.id },
  });
  const [row] = await rs.json<{ n: number }>();
  return Number(row?.n ?? 0);
}

async function factDay(p: TestProject): Promise<string> {
  const rs = await h().deps.ch.query({
    query: 'SELECT toString(day) AS day FROM uninstalls WHERE project_id = {p:String}',
    format: 'JSONEachRow',
    query_params: { p: p.project.id },
  });
  const [row] = await rs.json<{ day: string }>();
  return row?.day ?? '';
}

async function failDays(fcm: FakePush, p: TestProject, token: string, results: PushResult[]) {
  for (const [day, r] of results.entries()) {
    fcm.answers.set(token, r);
    await passOn(day, fcm, p);
  }
}

describe('failed days', () => {
  it.each<[string, PushResult[], number, boolean]>([
    ['fails 1 day', ['unregistered'], 1, false],
    ['fails 2 days', ['unregistered', 'unregistered'], 2, false],
    ['fails 3 days', ['unregistered', 'unregistered', 'unregistered'], 3, true],
    ['fails 2 days then is delivered', ['unregistered', 'unregistered', 'delivered'], 0, false],
    [
      'fails 2, recovers, fails 2 again',
      ['unregistered', 'unregistered', 'delivered', 'unregistered', 'unregistered'],
      2,
      false,
    ],
    ['fails with service errors only', ['error', 'error', 'error', 'error'], 0, false],
    ['fails, errors, fails, fails', ['unregistered', 'error', 'unregistered', 'unregistered'], 3, true],
  ])(
    'when a token %s, then the failure count and uninstall state follow',
    async (_n, results, failures, uninstalled) => {
      const { p, iid, token } = await withToken();
      const fcm = fakePushSender('FCM');

      await failDays(fcm, p, token, results);

      expect(await state(p, iid)).toEqual({ push_failures: failures, uninstalled });
      expect((await uninstallFacts(p)).length).toBe(uninstalled ? 1 : 0);
    },
  );

  it('when the pass runs twice on one day, then the token is pushed and counted once', async () => {
    const { p, iid, token } = await withToken();
    const fcm = fakePushSender('FCM');
    fcm.answers.set(token, 'unregistered');

    await passOn(0, fcm, p);
    await passOn(0, fcm, p);

    expect(fcm.sent.filter((t) => t.token === token)).toHaveLength(1);
    expect(await state(p, iid)).toEqual({ push_failures: 1, uninstalled: false });
  });
});

describe('token refresh', () => {
  it('when the app sends a new push token after 2 failed days, then the count starts again', async () => {
    const { p, iid, token } = await withToken();
    const fcm = fakePushSender('FCM');
    await failDays(fcm, p, token, ['unregistered', 'unregistered']);

    const res = await savePushToken(h(), p, iid, `fcm:${randomUUID()}`);

    expect(res.statusCode).toBe(200);
    expect(await state(p, iid)).toEqual({ push_failures: 0, uninstalled: false });
  });
});

describe('uninstall fact', () => {
  it('when the third day fails, then one uninstalls fact with the install campaign, counted by reporting', async () => {
    const { p, campaign, iid, token } = await withToken();
    const fcm = fakePushSender('FCM');

    await failDays(fcm, p, token, ['unregistered', 'unregistered', 'unregistered', 'unregistered']);

    expect(await uninstallFacts(p)).toEqual([
      {
        install_instance_id: iid,
        campaign_id: campaign.id,
        display_id: campaign.displayId,
        network: 'META',
        platform: 'ANDROID',
        provider: 'FCM',
        failed_days: 3,
      },
    ]);
    expect(await reportedUninstalls(p)).toBe(1);
    const day = await factDay(p);
    const report = await h().app.inject({
      method: 'GET',
      url: `/api/v1/reporting/campaigns?from=${day}&to=${day}`,
      headers: p.headers,
    });
    expect(report.statusCode).toBe(200);
    expect(report.json().data.campaigns).toMatchObject([{ id: campaign.id, uninstalls: '1' }]);
    expect(fcm.sent.filter((t) => t.token === token)).toHaveLength(3);
  });
});

describe('reinstall', () => {
  it('when an uninstalled install inits again, then the state clears, a reinstall is recorded, pushes resume', async () => {
    const { p, iid, token } = await withToken();
    const fcm = fakePushSender('FCM');
    await failDays(fcm, p, token, ['unregistered', 'unregistered', 'unregistered']);
    h().deps.now = realNow;

    const res = await init(h(), p.token, { install_instance_id: iid });
    fcm.answers.set(token, 'delivered');
    await passOn(4, fcm, p);

    expect(res.statusCode).toBe(202);
    expect(await state(p, iid)).toEqual({ push_failures: 0, uninstalled: false });
    await flushFacts(h());
    expect((await installEvents(h().deps, p)).map((e) => e.kind)).toContain('reinstall_after_uninstall');
    expect(fcm.sent.filter((t) => t.token === token)).toHaveLength(4);
  });

  it('when an uninstalled install sends an event, then the uninstall is undone', async () => {
    const { p, iid, token } = await withToken();
    await signUp(h(), p, iid, 'u-1');
    const fcm = fakePushSender('FCM');
    await failDays(fcm, p, token, ['unregistered', 'unregistered', 'unregistered']);
    h().deps.now = realNow;

    const res = await post(h(), 'capture-event', {
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: iid,
      event_name: 'open',
    });

    expect(res.statusCode).toBe(200);
    expect(await state(p, iid)).toEqual({ push_failures: 0, uninstalled: false });
  });
  it.each([
    ['refreshes its push token', 'token'],
    ['signs a user in (trigger)', 'trigger'],
  ])('when an uninstalled install %s, then the uninstall is undone and a reinstall is recorded', async (_n, what) => {
    const { p, iid, token } = await withToken();
    const fcm = fakePushSender('FCM');
    await failDays(fcm, p, token, ['unregistered', 'unregistered', 'unregistered']);
    h().deps.now = realNow;
    expect(await state(p, iid)).toEqual({ push_failures: 3, uninstalled: true });

    const res =
      what === 'token'
        ? await savePushToken(h(), p, iid, token)
        : await post(h(), 'trigger', {
            token: p.token,
            platform: 'ANDROID',
            install_instance_id: iid,
            user_data: { id: 'u-back' },
            data: { device_data: {} },
          });

    expect(res.statusCode).toBe(200);
    // Was: still uninstalled (only init, events and payments were read as the app in use).
    expect(await state(p, iid)).toEqual({ push_failures: 0, uninstalled: false });
    await flushFacts(h());
    expect((await installEvents(h().deps, p)).map((e) => e.kind)).toContain('reinstall_after_uninstall');
  });
});

describe('providers', () => {
  it('when a token is an APNs token, then it goes to the APNs sender; without credentials it is skipped', async () => {
    const apnsToken = 'a'.repeat(64);
    const { p, iid } = await withToken(apnsToken);
    const fcm = fakePushSender('FCM');
    const apns = fakePushSender('APNS');

    const skipped = await passOn(0, fcm, p);
    await passOn(1, fcm, p, apns);

    expect(skipped.skipped).toBeGreaterThanOrEqual(1);
    expect(fcm.sent.some((t) => t.installInstanceId === iid)).toBe(false);
    expect(apns.sent.filter((t) => t.installInstanceId === iid)).toHaveLength(1);
  });
});
