// An uninstalled install whose user never went through trigger (most installs: no sign-up yet)
// sends capture-event or capture-payment. Rule 1 / Rule 3 store no fact, but the request comes from
// the device, so it proves the app is back (README Uninstall tracking: "A later init, event or
// payment from that install clears the state and writes an install_events row of kind
// reinstall_after_uninstall"). The unregistered answer returned before that undo ran.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { attributedInstall, flushFacts, installEvents, post, useClientHarness } from '../support/client.ts';
import { outboxCount, signUp } from '../support/commerce.ts';
import { fakePushSender } from '../support/fake-push.ts';
import { newProject, type TestProject } from '../support/harness.ts';
import { passAt, savePushToken, uninstallState } from '../support/uninstalls.ts';

const h = useClientHarness();
const DAY = 86_400_000;
const realNow = Date.now;
let dayOffset = 2000;

afterEach(() => {
  h().deps.now = realNow;
});

const answer200 = (message: string) => ({ msg: message, status: 200, data: { message } });
const EVENT_NOT_STORED = answer200('Event not stored: the user is not registered. Call trigger first.');
const PAYMENT_NOT_STORED = answer200('Payment not stored: the user is not registered. Call trigger first.');

/** An install with no registered user (unless `before` registers one), uninstalled by three failed days. */
async function uninstalledInstall(
  before: (p: TestProject, iid: string) => Promise<void> = async () => {},
): Promise<{ p: TestProject; iid: string }> {
  const p = await newProject(h().deps);
  const { iid } = await attributedInstall(h(), p);
  await before(p, iid);
  const token = `fcm:${randomUUID()}`;
  expect((await savePushToken(h(), p, iid, token)).statusCode).toBe(200);
  const fcm = fakePushSender('FCM');
  fcm.answers.set(token, 'unregistered');
  const base = realNow() + dayOffset * DAY;
  dayOffset += 10;
  for (const day of [0, 1, 2]) {
    await passAt(h(), p, base + day * DAY, { FCM: fcm });
  }
  h().deps.now = realNow;
  expect(await uninstallState(h().deps, p, iid)).toEqual({ push_failures: 3, uninstalled: true });
  return { p, iid };
}

async function reinstalls(p: TestProject): Promise<string[]> {
  await flushFacts(h());
  return (await installEvents(h().deps, p)).filter((e) => e.kind === 'reinstall_after_uninstall').map((e) => e.kind);
}

describe('a request from an uninstalled install of an unregistered user', () => {
  it('when it sends capture-event, then the event is not stored, the uninstall is cleared and one reinstall is recorded', async () => {
    const { p, iid } = await uninstalledInstall();

    const res = await post(h(), 'capture-event', {
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: iid,
      event_name: 'level_up',
      event_id: 'e-1',
    });

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(EVENT_NOT_STORED);
    expect(await uninstallState(h().deps, p, iid)).toEqual({ push_failures: 0, uninstalled: false });
    expect(await outboxCount(h().deps, p, 'events')).toBe(0);
    const seen = await h().deps.sql`SELECT 1 FROM seen_event_ids WHERE project_id = ${p.project.id}`;
    expect(seen.length).toBe(0);
    expect(await reinstalls(p)).toEqual(['reinstall_after_uninstall']);
  });

  it('when it sends capture-payment, then the payment is not stored, the uninstall is cleared and one reinstall is recorded', async () => {
    const { p, iid } = await uninstalledInstall();

    const res = await post(h(), 'capture-payment', {
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: iid,
      amount: 4.99,
      payment_id: `pay-${randomUUID()}`,
    });

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(PAYMENT_NOT_STORED);
    expect(await uninstallState(h().deps, p, iid)).toEqual({ push_failures: 0, uninstalled: false });
    const payments = await h().deps.sql`SELECT 1 FROM payments WHERE project_id = ${p.project.id}`;
    expect(payments.length).toBe(0);
    expect(await outboxCount(h().deps, p, 'payments')).toBe(0);
    expect(await reinstalls(p)).toEqual(['reinstall_after_uninstall']);
  });

  it('when it sends two events, then the second finds nothing to undo and one reinstall is recorded', async () => {
    const { p, iid } = await uninstalledInstall();
    const send = () =>
      post(h(), 'capture-event', { token: p.token, platform: 'ANDROID', install_instance_id: iid, event_name: 'open' });

    expect((await send()).json()).toEqual(EVENT_NOT_STORED);
    expect((await send()).json()).toEqual(EVENT_NOT_STORED);

    expect(await uninstallState(h().deps, p, iid)).toEqual({ push_failures: 0, uninstalled: false });
    expect(await reinstalls(p)).toEqual(['reinstall_after_uninstall']);
  });
});

describe('a repeated event_id or payment_id from an uninstalled install of a registered user', () => {
  // The repeat answered "duplicate" before the undo ran, so it did not clear the uninstall.
  const event = (p: TestProject, iid: string) =>
    post(h(), 'capture-event', {
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: iid,
      event_name: 'level_up',
      event_id: 'e-repeat',
    });
  const payment = (p: TestProject, iid: string) =>
    post(h(), 'capture-payment', {
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: iid,
      amount: 4.99,
      payment_id: 'pay-repeat',
    });

  it.each([
    ['event', event],
    ['payment', payment],
  ])(
    'when the %s repeats one sent before the uninstall, then it is a duplicate and the uninstall is cleared',
    async (_kind, send) => {
      const { p, iid } = await uninstalledInstall(async (p, iid) => {
        await signUp(h(), p, iid, `user-${randomUUID()}`);
        expect((await send(p, iid)).statusCode).toBeLessThan(300);
      });

      const res = await send(p, iid);

      expect(res.json().data.message).toMatch(/already captured: duplicate/);
      expect(await uninstallState(h().deps, p, iid)).toEqual({ push_failures: 0, uninstalled: false });
      expect(await reinstalls(p)).toEqual(['reinstall_after_uninstall']);
    },
  );
});
