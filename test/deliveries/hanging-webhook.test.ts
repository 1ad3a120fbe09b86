// A webhook endpoint that accepts POSTs and never answers must cost one queue slot, for one timeout
// at a time: each destination has one job id (waiting, running or retrying), so later ticks add
// nothing for it, and its job gives the rest of its batch back after the first timeout. Another
// project's webhook is then delivered while the hanging endpoint still holds its first POST. Runs
// on the in-process queue and, when the run has Redis, on BullMQ, with the real job handler.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { deliverJob } from '../../jobs/deliver.job.ts';
import type { Deps } from '../../src/deps.ts';
import { addWebhook } from '../../src/domain/deliveries/add-webhook.ts';
import { enqueueDueDeliveries } from '../../src/domain/deliveries/enqueue-due-deliveries.ts';
import { QUEUES } from '../../src/queue/names.ts';
import { insertDeliveries } from '../../src/store/postgres/deliveries.ts';
import { processRedisUrl } from '../support/client.ts';
import { deliverAt, deliveryEnv, deliveryRows } from '../support/deliveries.ts';
import { closeHarness, type Harness, makeHarness, newProject, type TestProject } from '../support/harness.ts';

// Two local receivers (two origins, as two projects' endpoints would be): `hanging` takes the POST
// and never answers, `healthy` answers 200 and notes what `hanging` held at that moment.
const hang = { arrived: 0, inFlight: 0, maxInFlight: 0 };
const okSeen: { hangArrived: number; hangInFlight: number }[] = [];
const hanging = createServer((req, res) => {
  req.resume();
  hang.arrived += 1;
  hang.inFlight += 1;
  hang.maxInFlight = Math.max(hang.maxInFlight, hang.inFlight);
  res.on('close', () => {
    hang.inFlight -= 1;
  });
});
const healthy = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    okSeen.push({ hangArrived: hang.arrived, hangInFlight: hang.inFlight });
    res.writeHead(200).end();
  });
});
const urlOf = (s: Server): string => `http://127.0.0.1:${(s.address() as AddressInfo).port}/hook`;
beforeAll(async () => {
  await Promise.all([hanging, healthy].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
});
afterAll(async () => {
  for (const s of [hanging, healthy]) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A project with a signup webhook to `receiver` and `n` signups queued for it. */
async function hookedWithBacklog(deps: Deps, receiver: Server, n: number): Promise<TestProject> {
  const p = await newProject(deps);
  const hook = await addWebhook(deps, p.project.id, { url: urlOf(receiver), events: ['signup'] });
  await insertDeliveries(
    deps.sql,
    Array.from({ length: n }, (_, i) => ({
      projectId: p.project.id,
      destination: `webhook:${hook.id}`,
      eventKey: `signup:${randomUUID()}:u-${i}`,
      eventTime: new Date(),
      payload: { event_type: 'signup', user_id: `u-${i}` },
    })),
  );
  return p;
}

const redisUrl = processRedisUrl();
const queues = [
  { kind: 'in-process', env: {}, skip: false },
  { kind: 'bullmq', env: { REDIS_URL: redisUrl ?? '' }, skip: !inject('redisUrl') },
] as const;

describe.each(queues)('one hanging webhook, $kind queue', ({ kind, env, skip }) => {
  it.skipIf(skip)(
    "when one project's webhook hangs with a backlog through several ticks, then another project's webhook is delivered while the first POST still hangs",
    async () => {
      const h: Harness = await makeHarness({ env: { ...deliveryEnv(), ...env } });
      const { deps } = h;
      const slow = await hookedWithBacklog(deps, hanging, 60);
      const projects = [slow.project.id];
      try {
        expect(deps.queue.kind).toBe(kind);
        hang.arrived = 0;
        hang.maxInFlight = 0;
        okSeen.length = 0;
        await deps.queue.startWorkers({ [QUEUES.deliveries]: deliverJob(deps) });

        // The schedule's ticks: each passes a time 5 s after the last one's (a new tick, as the
        // cron's), compressed to 100 ms apart; each finds the slow destination's unclaimed rows due.
        const t0 = Date.now();
        let ticks = 0;
        const tick = async () => {
          ticks += 1;
          await enqueueDueDeliveries(deps, t0 + ticks * 5000);
          await sleep(100);
        };
        for (let i = 0; i < 5; i += 1) {
          await tick();
        }
        const fine = await hookedWithBacklog(deps, healthy, 1);
        projects.push(fine.project.id);
        // 30 more ticks at most: all inside the 5 s the hanging POST lasts before it times out.
        for (let i = 0; i < 30 && (await deliveryRows(deps, fine))[0]?.status !== 'sent'; i += 1) {
          await tick();
        }

        expect({
          fine: (await deliveryRows(deps, fine)).map((r) => r.status),
          okSeen,
          hangMaxInFlight: hang.maxInFlight,
        }).toEqual({ fine: ['sent'], okSeen: [{ hangArrived: 1, hangInFlight: 1 }], hangMaxInFlight: 1 });
      } finally {
        // This process's database is shared by both queue runs: nothing of this run may stay due.
        await deps.sql`DELETE FROM deliveries WHERE project_id = ANY (${projects})`;
        hanging.closeAllConnections();
        await closeHarness(h);
      }
    },
    60_000,
  );
});

describe('the job against a hanging webhook', () => {
  it('when the first POST of a batch times out, then the job ends after that one timeout and gives the other rows back untried', async () => {
    const h = await makeHarness({ env: deliveryEnv() });
    try {
      const p = await hookedWithBacklog(h.deps, hanging, 10);
      const [row] = await deliveryRows(h.deps, p);
      const before = hang.arrived;

      const out = await deliverAt(h.deps, p, row?.destination ?? '');

      expect(out).toEqual({ claimed: 10, sent: 0, stale: 0, dead: 0, retry: true });
      expect(hang.arrived - before).toBe(1);
      const rows = await h.deps.sql<{ attempts: number; leased: boolean; last_error: string | null }[]>`
        SELECT attempts, lease_until IS NOT NULL AS leased, last_error FROM deliveries
        WHERE project_id = ${p.project.id} AND status = 'pending' ORDER BY id`;
      expect(rows).toEqual([
        { attempts: 1, leased: false, last_error: 'timeout: no complete answer within 5000 ms' },
        ...Array.from({ length: 9 }, () => ({ attempts: 0, leased: false, last_error: null })),
      ]);
    } finally {
      hanging.closeAllConnections();
      await closeHarness(h);
    }
  }, 20_000);
});
