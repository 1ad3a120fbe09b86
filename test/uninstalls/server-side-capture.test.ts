// Server-side twins and uninstall state: a call from the customer's backend is not a request from
// the install, so it must not prove the app is back on the device (README Uninstall tracking: "A
// later init, event or payment from that install clears the state"). A backend's renewal after the
// app was deleted cleared the state, recorded a reinstall that never happened, and the next failed
// pushes counted the same uninstall a second time.
import { afterEach, describe, expect, it } from 'vitest';
import type { PushResult } from '../../src/domain/uninstalls/push-sender.ts';
import { attributedInstall, flushFacts, installEvents, useClientHarness } from '../support/client.ts';
import { signUp } from '../support/commerce.ts';
import { type FakePush, fakePushSender } from '../support/fake-push.ts';
import { newProject, type TestProject } from '../support/harness.ts';
import { passAt, savePushToken, uninstallState } from '../support/uninstalls.ts';

const h = useClientHarness();
const DAY = 86_400_000;
const realNow = Date.now;

afterEach(() => {
  h().deps.now = realNow;
});

async function passOn(day: number, fcm: FakePush, p: TestProject) {
  try {
    return await passAt(h(), p, realNow() + day * DAY, { FCM: fcm });
  } finally {
    h().deps.now = realNow;
  }
}

async function failDays(fcm: FakePush, p: TestProject, token: string, results: PushResult[], from = 0) {
  for (const [i, r] of results.entries()) {
    fcm.answers.set(token, r);
    await passOn(from + i, fcm, p);
  }
}

const state = (p: TestProject, iid: string) => uninstallState(h().deps, p, iid);

async function uninstallCount(p: TestProject): Promise<number> {
  await flushFacts(h());
  const rs = await h().deps.ch.query({
    query: 'SELECT count() AS n FROM uninstalls WHERE project_id = {p:String}',
    format: 'JSONEachRow',
    query_params: { p: p.project.id },
  });
  const [row] = await rs.json<{ n: string }>();
  return Number(row?.n ?? 0);
}

async function uninstalledUser() {
  const p = await newProject(h().deps);
  const { iid } = await attributedInstall(h(), p);
  const token = `fcm:${iid}`;
  expect((await savePushToken(h(), p, iid, token)).statusCode).toBe(200);
  await signUp(h(), p, iid, 'u-1');
  const fcm = fakePushSender('FCM');
  await failDays(fcm, p, token, ['unregistered', 'unregistered', 'unregistered']);
  expect(await state(p, iid)).toEqual({ push_failures: 3, uninstalled: true });
  return { p, iid, token, fcm };
}

describe('server-side capture and uninstall state', () => {
  it('when the backend captures a renewal for a user whose app is uninstalled, then the install stays uninstalled and no reinstall is recorded', async () => {
    const { p, iid } = await uninstalledUser();

    const res = await h().app.inject({
      method: 'POST',
      url: '/api/v1/capture-payment',
      headers: p.headers,
      payload: { user_id: 'u-1', amount: 9.99, type: 'SUBSCRIPTION_RENEWED', payment_id: 'renew-1' },
    });

    expect(res.statusCode).toBe(201);
    expect(await state(p, iid)).toEqual({ push_failures: 3, uninstalled: true });
    await flushFacts(h());
    expect((await installEvents(h().deps, p)).map((e) => e.kind)).not.toContain('reinstall_after_uninstall');
  });

  it('when the backend captures an event for an uninstalled user, then the install stays uninstalled', async () => {
    const { p, iid } = await uninstalledUser();

    const res = await h().app.inject({
      method: 'POST',
      url: '/api/v1/capture-event',
      headers: p.headers,
      payload: { user_id: 'u-1', event_name: 'subscription_renewed_backend' },
    });

    expect(res.statusCode).toBe(201);
    expect(await state(p, iid)).toEqual({ push_failures: 3, uninstalled: true });
  });

  it('when a backend renewal arrives after the uninstall and pushes keep failing, then the one uninstall is counted once', async () => {
    const { p, token, fcm } = await uninstalledUser();
    expect(await uninstallCount(p)).toBe(1);

    const res = await h().app.inject({
      method: 'POST',
      url: '/api/v1/capture-payment',
      headers: p.headers,
      payload: { user_id: 'u-1', amount: 9.99, type: 'SUBSCRIPTION_RENEWED', payment_id: 'renew-2' },
    });
    expect(res.statusCode).toBe(201);
    // The app is still gone: the next three daily pushes fail like the first three.
    await failDays(fcm, p, token, ['unregistered', 'unregistered', 'unregistered'], 3);

    expect(await uninstallCount(p)).toBe(1);
  });
});
