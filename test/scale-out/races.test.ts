// Scaled out: two independent app instances (each its own Postgres pool, Redis connections,
// rate-limit store, queue) over one Postgres and one Redis, as README "Roles and scaling out" runs
// them ("run any number of ROLE=api processes behind a load balancer"). The same request is sent to
// both at the same moment; README Architecture: "Postgres ... decides uniqueness and dedupe (install
// ids, event_id, payment_id) before a fact exists ... a fact is never lost and never written twice".
// The two instances share this process's one ClickHouse engine (chdb allows one per process).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { flushFacts, init, post, type Res } from '../support/client.ts';
import { netRevenue, paymentFacts, registeredUser } from '../support/commerce.ts';
import { chCounts } from '../support/fact-counts.ts';
import { type Harness, newProject } from '../support/harness.ts';
import { hasRedis, useTwoInstances } from './instances.ts';

let a: Harness;
let b: Harness;
useTwoInstances({ RATE_LIMITS_ENABLED: 'false' }, (x, y) => {
  a = x;
  b = y;
});

const times = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

describe.skipIf(!hasRedis)('two API instances, same request at once', () => {
  it('when the same install id inits on both instances at once, then one install row, one install fact and one app_open', async () => {
    const p = await newProject(a.deps);
    const iids = times(20, () => randomUUID());
    const answers = await Promise.all(
      iids.flatMap((iid) => [
        init(a, p.token, { install_instance_id: iid, device_data: { gaid: `g-${iid}` } }),
        init(b, p.token, { install_instance_id: iid, device_data: { gaid: `g-${iid}` } }),
      ]),
    );

    expect(answers.map((r) => r.statusCode)).toEqual(times(40, () => 202));
    const installs = await a.deps.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM installs WHERE project_id = ${p.project.id}`;
    expect(installs[0]?.n).toBe(20);
    // The install_events rows rest in the outbox until the install's decision; count them there.
    const kinds = await a.deps.sql<{ kind: string; n: number }[]>`
      SELECT row->>'kind' AS kind, count(*)::int AS n FROM fact_outbox
      WHERE project_id = ${p.project.id} AND fact_table = 'install_events' GROUP BY 1 ORDER BY 1`;
    expect(kinds.map((k) => ({ ...k }))).toEqual([
      { kind: 'app_open', n: 20 },
      { kind: 'install', n: 20 },
    ]);
  });

  it('when the same user triggers on both instances at once, then one user, one sign-up fact and one answer with trigger: true', async () => {
    const p = await newProject(a.deps);
    const iids = times(15, () => randomUUID());
    for (const iid of iids) {
      expect((await init(a, p.token, { install_instance_id: iid })).statusCode).toBe(202);
    }
    const body = (iid: string) => ({
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: iid,
      user_data: { id: `u-${iid}` },
      data: { device_data: {} },
    });
    const answers = await Promise.all(
      iids.flatMap((iid) => [post(a, 'trigger', body(iid)), post(b, 'trigger', body(iid))]),
    );

    expect(answers.map((r) => r.statusCode)).toEqual(times(30, () => 200));
    const firsts = answers.filter((r) => r.json().data?.trigger === true).length;
    expect(firsts).toBe(15);
    const users = await a.deps.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM app_users WHERE project_id = ${p.project.id}`;
    expect(users[0]?.n).toBe(15);
    const outbox = await a.deps.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM fact_outbox WHERE project_id = ${p.project.id} AND fact_table = 'signups'`;
    expect(outbox[0]?.n).toBe(15);
  });

  it('when the same payment_id is captured on both instances at once, then one payment row and one payment fact', async () => {
    const { p, iid } = await registeredUser(a, 'payer');
    const pay = (h: Harness, paymentId: string) =>
      post(h, 'capture-payment', {
        token: p.token,
        platform: 'ANDROID',
        install_instance_id: iid,
        user_id: 'payer',
        payment_id: paymentId,
        amount: 10,
        type: 'ONE_TIME',
        status: 'PAYMENT_COMPLETED',
      });
    const ids = times(20, (i) => `pay-${i}`);
    const answers = await Promise.all(ids.flatMap((id) => [pay(a, id), pay(b, id)]));
    await flushFacts(a);

    expect(answers.filter((r) => r.statusCode >= 500)).toEqual([]);
    const rows = await a.deps.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM payments WHERE project_id = ${p.project.id}`;
    expect(rows[0]?.n).toBe(20);
    expect(await paymentFacts(a.deps, p)).toHaveLength(20);
    expect(await netRevenue(a.deps, p)).toBe('200');
  });

  it('when the same event_id is captured on both instances at once, then one event fact each', async () => {
    const { p, iid } = await registeredUser(a, 'eventer');
    const send = (h: Harness, eventId: string) =>
      post(h, 'capture-event', {
        token: p.token,
        platform: 'ANDROID',
        install_instance_id: iid,
        user_id: 'eventer',
        event_name: 'level_up',
        event_id: eventId,
      });
    const ids = times(20, (i) => `ev-${i}`);
    const answers = await Promise.all(ids.flatMap((id) => [send(a, id), send(b, id)]));
    await flushFacts(a);

    expect(answers.filter((r) => r.statusCode >= 500)).toEqual([]);
    const counts = await chCounts(a.deps, 'events', p.project.id);
    expect(counts).toEqual({ rows: 20, unique: 20 });
  });

  it('when remove-captured-payment on one instance races capture-payment on the other, then the answers agree with the stored revenue', async () => {
    const { p, iid } = await registeredUser(a, 'refunder');
    const ids = times(20, (i) => `r-${i}`);
    const pairs = await Promise.all(
      ids.map((id, i) => {
        const [capH, remH] = i % 2 === 0 ? [a, b] : [b, a];
        return Promise.all([
          post(capH, 'capture-payment', {
            token: p.token,
            platform: 'ANDROID',
            install_instance_id: iid,
            user_id: 'refunder',
            payment_id: id,
            amount: 5,
            type: 'ONE_TIME',
            status: 'PAYMENT_COMPLETED',
          }),
          post(remH, 'remove-captured-payment', {
            token: p.token,
            platform: 'ANDROID',
            install_instance_id: iid,
            payment_id: id,
          }),
        ]);
      }),
    );
    await flushFacts(a);

    let expected = 0;
    for (const [cap, rem] of pairs as [Res, Res][]) {
      expect(cap.statusCode).toBe(201);
      expect(rem.statusCode).toBe(200);
      if (rem.json().data.removed === 0) {
        expected += 5;
      }
    }
    expect(await netRevenue(a.deps, p)).toBe(String(expected));
  });
});
