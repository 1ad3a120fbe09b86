// Two uninstall passes of one day (README "Uninstall tracking": "A rerun on the same day skips
// installs already pushed"; `uninstalls run` beside the worker's job): each claims a page before it
// sends it (migration 0031), so a token gets one push a day and one failed day. A pass that stopped
// mid-page leaves its claims to lapse, and a later pass of the day pushes those installs; a push
// that answered an error is given back and tried again by a rerun. Fake push senders only.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { PushResult, PushSender, PushTarget } from '../../src/domain/uninstalls/push-sender.ts';
import { runUninstallPass } from '../../src/domain/uninstalls/run-uninstall-pass.ts';
import { attributedInstall, flushFacts, useClientHarness } from '../support/client.ts';
import { fakePushSender } from '../support/fake-push.ts';
import { newProject, type TestProject } from '../support/harness.ts';
import { passAt, savePushToken, uninstallState } from '../support/uninstalls.ts';

const h = useClientHarness();
const DAY = 86_400_000;
const realNow = Date.now;
let dayOffset = 3000;

afterEach(() => {
  h().deps.now = realNow;
});

function days() {
  const d = new Date(realNow() + dayOffset * DAY);
  dayOffset += 20;
  d.setUTCHours(3, 0, 0, 0);
  return d.getTime();
}

const state = (p: TestProject, iid: string) => uninstallState(h().deps, p, iid);

async function withToken() {
  const p = await newProject(h().deps);
  const { iid } = await attributedInstall(h(), p);
  const token = `fcm:${randomUUID()}`;
  expect((await savePushToken(h(), p, iid, token)).statusCode).toBe(200);
  return { p, iid, token };
}

async function uninstallFacts(p: TestProject) {
  await flushFacts(h());
  const rs = await h().deps.ch.query({
    query: 'SELECT install_instance_id FROM uninstalls WHERE project_id = {p:String}',
    format: 'JSONEachRow',
    query_params: { p: p.project.id },
  });
  return rs.json();
}

async function claimOf(p: TestProject, iid: string): Promise<Date | null> {
  const [r] = await h().deps.sql`SELECT push_claimed_until FROM installs
    WHERE project_id = ${p.project.id} AND install_instance_id = ${iid}`;
  return (r?.push_claimed_until as Date | null) ?? null;
}

/** A push service that answers only when told to (a pass that stops mid-send never is). */
function stuckSender(): PushSender & { sent: PushTarget[]; answer: (r: PushResult) => void } {
  let answer: (r: PushResult) => void = () => {};
  const gate = new Promise<PushResult>((r) => {
    answer = r;
  });
  const sent: PushTarget[] = [];
  return {
    provider: 'FCM',
    sent,
    answer: (r) => answer(r),
    async send(batch) {
      sent.push(...batch);
      const r = await gate;
      return batch.map(() => r);
    },
  };
}

describe('two passes at once', () => {
  it('when two passes run at once on one day, then each token is pushed once and counted once', async () => {
    const { p, iid, token } = await withToken();
    // A slow push service: both passes read their targets before either records a result.
    const fcm = fakePushSender('FCM', 300);
    fcm.answers.set(token, 'unregistered');
    const base = days();
    h().deps.now = () => base;
    const senders = async (id: string) => (id === p.project.id ? { FCM: fcm } : {});

    const [a, b] = await Promise.all([runUninstallPass(h().deps, senders), runUninstallPass(h().deps, senders)]);

    expect(fcm.sent.filter((t) => t.token === token)).toHaveLength(1);
    expect(await state(p, iid)).toEqual({ push_failures: 1, uninstalled: false });
    expect(a.unregistered + b.unregistered).toBe(1);
    expect(a.held + b.held).toBe(1);
    expect(await claimOf(p, iid)).toBeNull();
  });

  it('when two passes run at once on the third failed day, then one uninstall fact is written', async () => {
    const { p, iid, token } = await withToken();
    const fcm = fakePushSender('FCM', 200);
    fcm.answers.set(token, 'unregistered');
    const base = days();
    await passAt(h(), p, base, { FCM: fcm });
    await passAt(h(), p, base + DAY, { FCM: fcm });
    h().deps.now = () => base + 2 * DAY;
    const senders = async (id: string) => (id === p.project.id ? { FCM: fcm } : {});

    const tallies = await Promise.all([runUninstallPass(h().deps, senders), runUninstallPass(h().deps, senders)]);

    expect(tallies.reduce((n, t) => n + t.uninstalled, 0)).toBe(1);
    expect(fcm.sent.filter((t) => t.token === token)).toHaveLength(3);
    expect(await state(p, iid)).toEqual({ push_failures: 3, uninstalled: true });
    expect(await uninstallFacts(p)).toHaveLength(1);
  });

  it('when many installs are passed by two passes at once in small pages, then each is pushed once', async () => {
    const p = await newProject(h().deps);
    const tokens: string[] = [];
    for (let i = 0; i < 12; i++) {
      const { iid } = await attributedInstall(h(), p);
      const token = `fcm:${randomUUID()}`;
      expect((await savePushToken(h(), p, iid, token)).statusCode).toBe(200);
      tokens.push(token);
    }
    const fcm = fakePushSender('FCM', 50);
    const base = days();
    h().deps.now = () => base;
    const senders = async (id: string) => (id === p.project.id ? { FCM: fcm } : {});
    const opts = { batchSize: 2, concurrency: 1, heldPollMs: 50 };

    const [a, b] = await Promise.all([
      runUninstallPass(h().deps, senders, opts),
      runUninstallPass(h().deps, senders, opts),
    ]);

    expect(fcm.sent.map((t) => t.token).sort()).toEqual([...tokens].sort());
    expect(a.delivered + b.delivered).toBe(12);
  });
});

describe('a pass that stopped', () => {
  it('when a pass stopped after claiming a page, then a later pass of the day pushes it once its claim lapses', async () => {
    const { p, iid, token } = await withToken();
    const base = days();
    const stuck = stuckSender();
    const fcm = fakePushSender('FCM');
    fcm.answers.set(token, 'unregistered');
    // The first pass claims the page and never hears back from the push service.
    const first = passAt(h(), p, base, { FCM: stuck });
    while (stuck.sent.length === 0) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await claimOf(p, iid)).not.toBeNull();
    // Its 10-minute claim is one second from lapsing.
    await h().deps.sql`UPDATE installs SET push_claimed_until = now() + interval '1 second'
      WHERE project_id = ${p.project.id} AND install_instance_id = ${iid}`;

    const rerun = await runUninstallPass(h().deps, async (id) => (id === p.project.id ? { FCM: fcm } : {}), {
      heldPollMs: 100,
    });

    expect(rerun.held).toBe(1);
    expect(rerun.waitedMs).toBeGreaterThan(0);
    expect(fcm.sent.filter((t) => t.token === token)).toHaveLength(1);
    expect(await state(p, iid)).toEqual({ push_failures: 1, uninstalled: false });
    // The stopped pass's late answer counts nothing more for the day.
    stuck.answer('unregistered');
    await first;
    expect(await state(p, iid)).toEqual({ push_failures: 1, uninstalled: false });
  });

  it('when a push answered an error, then a rerun the same day pushes it again', async () => {
    const { p, iid, token } = await withToken();
    const base = days();
    const fcm = fakePushSender('FCM');
    fcm.answers.set(token, 'error');

    await passAt(h(), p, base, { FCM: fcm });
    fcm.answers.set(token, 'unregistered');
    const rerun = await passAt(h(), p, base + 3_600_000, { FCM: fcm });

    expect(rerun.held).toBe(0);
    expect(fcm.sent.filter((t) => t.token === token)).toHaveLength(2);
    expect(await state(p, iid)).toEqual({ push_failures: 1, uninstalled: false });
    expect(await claimOf(p, iid)).toBeNull();
  });
});
