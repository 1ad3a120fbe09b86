// Push results and tokens that change hands. A result counts only for the token it was sent to
// (installs.ts savePushToken: "A new token starts uninstall tracking's count of failed days
// afresh"), and one token has one install per project: the one that sent it last (an iOS
// reinstall gets a new install_instance_id while the APNs device token commonly stays the same;
// product-notes: "3 consecutive uninstalled days count as an uninstall").
import { randomBytes, randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { PushSender } from '../../src/domain/uninstalls/push-sender.ts';
import { attributedInstall, useClientHarness } from '../support/client.ts';
import { fakePushSender } from '../support/fake-push.ts';
import { newProject, type TestProject } from '../support/harness.ts';
import { passAt, savePushToken, uninstallState } from '../support/uninstalls.ts';

const h = useClientHarness();
const DAY = 86_400_000;
const realNow = Date.now;
let dayOffset = 1000;

afterEach(() => {
  h().deps.now = realNow;
});

const saveToken = (p: TestProject, iid: string, pushToken: string, platform?: string) =>
  savePushToken(h(), p, iid, pushToken, platform);

/** Runs the pass on simulated days, each later than any earlier test's days. */
function daysFrom() {
  const base = realNow() + dayOffset * DAY;
  dayOffset += 10;
  return (day: number, p: TestProject, senders: Partial<Record<'FCM' | 'APNS', PushSender>>) =>
    passAt(h(), p, base + day * DAY, senders);
}

describe('a token replaced while the pass pushes the old one', () => {
  it("when the old token's push fails after the new token was saved, then the failure is not counted against the new token", async () => {
    const p = await newProject(h().deps);
    const { iid } = await attributedInstall(h(), p);
    const oldToken = `fcm:${randomUUID()}`;
    const newToken = `fcm:${randomUUID()}`;
    expect((await saveToken(p, iid, oldToken)).statusCode).toBe(200);
    let rotateDuringSend = false;
    const fcm: PushSender = {
      provider: 'FCM',
      async send(batch) {
        if (rotateDuringSend && batch.some((t) => t.token === oldToken)) {
          // The device gets a fresh FCM token and reports it while the push to the old one is in flight.
          expect((await saveToken(p, iid, newToken)).statusCode).toBe(200);
        }
        return batch.map((t) => (t.token === oldToken ? 'unregistered' : 'delivered'));
      },
    };
    const passOn = daysFrom();
    await passOn(0, p, { FCM: fcm });
    await passOn(1, p, { FCM: fcm });
    expect(await uninstallState(h().deps, p, iid)).toEqual({ push_failures: 2, uninstalled: false });

    rotateDuringSend = true;
    await passOn(2, p, { FCM: fcm });

    // The new token has not failed once: its count starts at 0 (as update-push-token alone does).
    expect(await uninstallState(h().deps, p, iid)).toEqual({ push_failures: 0, uninstalled: false });
  });

  it("when the old token's push is delivered after the new token was saved, then the new token is still pushed that day", async () => {
    const p = await newProject(h().deps);
    const { iid } = await attributedInstall(h(), p);
    const oldToken = `fcm:${randomUUID()}`;
    const newToken = `fcm:${randomUUID()}`;
    expect((await saveToken(p, iid, oldToken)).statusCode).toBe(200);
    const sent: string[] = [];
    const fcm: PushSender = {
      provider: 'FCM',
      async send(batch) {
        sent.push(...batch.map((t) => t.token));
        if (batch.some((t) => t.token === oldToken)) {
          expect((await saveToken(p, iid, newToken)).statusCode).toBe(200);
        }
        return batch.map(() => 'delivered');
      },
    };
    const passOn = daysFrom();

    await passOn(0, p, { FCM: fcm });
    await passOn(0, p, { FCM: fcm });

    expect(sent).toEqual([oldToken, newToken]);
  });
});

describe('one token sent by two installs of a project', () => {
  it('when the app is removed once, then one uninstall is counted and the device gets one push a day', async () => {
    const p = await newProject(h().deps);
    const apnsToken = randomBytes(32).toString('hex');
    const first = await attributedInstall(h(), p);
    const second = await attributedInstall(h(), p);
    for (const iid of [first.iid, second.iid]) {
      expect((await saveToken(p, iid, apnsToken, 'IOS')).statusCode).toBe(200);
    }
    const apns = fakePushSender('APNS');
    apns.answers.set(apnsToken, 'unregistered');
    const passOn = daysFrom();

    let uninstalled = 0;
    for (const day of [0, 1, 2]) {
      uninstalled += (await passOn(day, p, { APNS: apns })).uninstalled;
    }

    expect({ uninstalled, pushes: apns.sent.filter((t) => t.token === apnsToken).length }).toEqual({
      uninstalled: 1,
      pushes: 3,
    });
    expect(await uninstallState(h().deps, p, second.iid)).toEqual({ push_failures: 3, uninstalled: true });
    expect(await uninstallState(h().deps, p, first.iid)).toEqual({ push_failures: 0, uninstalled: false });
  });
});
