// Duplicate client retries under load (reliability catalog §4c, rule 4): the same init (same
// install_instance_id), trigger (same user), capture-event (same event_id) and capture-payment
// (same payment_id), each sent several times sequentially and concurrently while the load runs,
// store exactly one install, sign-up, event and payment. Every request answers 2xx.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DURATION, type Fixture, finish, setupFixture, TEST_MS, WORKERS } from './support/fixture.ts';
import { type Device, type Kind, Ledger, send, startLoad } from './support/load.ts';
import { postgresUnavailable } from './support/postgres.ts';
import { redisUnavailable } from './support/redis.ts';
import { sleep } from './support/wait.ts';

const skip = postgresUnavailable();
if (skip) {
  console.warn(`duplicate retries skipped: ${skip}`);
}
const SEQUENTIAL = 3;
const CONCURRENT = 20;

let fx: Fixture | undefined;
beforeAll(async () => {
  if (!skip) {
    fx = await setupFixture({ redis: redisUnavailable() === undefined, entry: 'main' });
  }
});
afterAll(async () => {
  await fx?.close();
});

/** Sends one record `SEQUENTIAL` times in a row and `CONCURRENT` times at once; `concurrentFirst` swaps the order. */
async function retry(ledger: Ledger, f: Fixture, kind: Kind, d: Device, key: string, concurrentFirst: boolean) {
  const sequential = async () => {
    for (let i = 0; i < SEQUENTIAL; i++) {
      await send(ledger, f.svc.baseUrl, f.token(), kind, d, key);
    }
  };
  const concurrent = () =>
    Promise.all(Array.from({ length: CONCURRENT }, () => send(ledger, f.svc.baseUrl, f.token(), kind, d, key)));
  if (concurrentFirst) {
    await concurrent();
    await sequential();
  } else {
    await sequential();
    await concurrent();
  }
}

describe.skipIf(skip !== undefined)('duplicate client retries during load', () => {
  it(
    'when init, trigger, capture-event and capture-payment are each retried sequentially and concurrently under load, then exactly one of each is stored',
    async () => {
      const f = fx as Fixture;
      const ledger = new Ledger();
      const load = startLoad({ ledger, baseUrl: f.svc.baseUrl, token: f.token(), workers: WORKERS });
      await sleep(DURATION.warmupMs);

      const retried: { kind: Kind; key: string }[] = [];
      for (const concurrentFirst of [false, true, false, true]) {
        const d: Device = { iid: randomUUID(), userId: `u-dup-${randomUUID()}` };
        const records: [Kind, string][] = [
          ['init', d.iid],
          ['trigger', d.userId],
          ['event', `ev-dup-${randomUUID()}`],
          ['payment', `pay-dup-${randomUUID()}`],
        ];
        for (const [kind, key] of records) {
          await retry(ledger, f, kind, d, key, concurrentFirst);
          retried.push({ kind, key });
        }
      }
      await sleep(DURATION.afterMs);
      await load.stop();

      const s = await finish(f, ledger, {
        test: 'duplicate-retries',
        windows: [],
        healedMs: 0,
        extra: { retried_records: retried.length, sends_per_record: SEQUENTIAL + CONCURRENT },
      });

      expect(s.non2xx).toEqual({});
      expect(s.dup).toBe(0);
      const sends = ledger.recs.filter((r) => retried.some((x) => x.kind === r.kind && x.key === r.key));
      expect(sends).toHaveLength(retried.length * (SEQUENTIAL + CONCURRENT));
    },
    TEST_MS,
  );
});
