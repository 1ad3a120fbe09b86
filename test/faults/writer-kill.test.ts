// F5 (reliability catalog §4b): the process holding a fact batch SIGKILLed mid-batch, under load.
// Through the fault entry the next ClickHouse insert lands and never answers, so the kill falls
// exactly between the insert and the outbox delete (the batch is in ClickHouse and still claimed
// in Postgres). The service (ROLE=all: API, workers and fact writer) is started again as
// src/main.ts; the stale batch is retried and its stored facts are skipped: lost = 0, dup = 0.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DURATION, type Fixture, finish, GRACE_MS, setupFixture, TEST_MS, WORKERS } from './support/fixture.ts';
import { Ledger, startLoad } from './support/load.ts';
import { postgresUnavailable } from './support/postgres.ts';
import { redisUnavailable } from './support/redis.ts';
import { sleep } from './support/wait.ts';

const skip = postgresUnavailable();
if (skip) {
  console.warn(`F5 skipped: ${skip}`);
}

let fx: Fixture | undefined;
beforeAll(async () => {
  if (!skip) {
    fx = await setupFixture({ redis: redisUnavailable() === undefined, entry: 'fault' });
  }
});
afterAll(async () => {
  await fx?.close();
});

describe.skipIf(skip !== undefined)('F5 service SIGKILLed mid-batch', () => {
  it(
    'when the process is SIGKILLed after a batch landed in ClickHouse but before the outbox delete, then after a restart lost = 0 and dup = 0',
    async () => {
      const f = fx as Fixture;
      const svc = f.svc;
      const ledger = new Ledger();
      const load = startLoad({ ledger, baseUrl: svc.baseUrl, token: f.token(), workers: WORKERS });
      await sleep(DURATION.warmupMs);

      svc.send('fault land-then-hang');
      await svc.child().waitFor('LANDED', 30_000);
      const landed = /LANDED (\S+) (\d+)/.exec(svc.child().stdout());
      const killMs = ledger.now();
      await svc.kill();
      await sleep(1000);
      await svc.start('main');
      const healedMs = ledger.now();
      await sleep(DURATION.afterMs);
      await load.stop();

      const s = await finish(f, ledger, {
        test: 'F5 sigkill-mid-batch',
        windows: [{ fromMs: killMs, toMs: healedMs + GRACE_MS }],
        healedMs,
        extra: {
          killed_batch_table: landed?.[1],
          killed_batch_rows: Number(landed?.[2] ?? 0),
          down_s: Math.round((healedMs - killMs) / 100) / 10,
        },
      });

      expect(Number(landed?.[2] ?? 0), 'a batch landed before the kill').toBeGreaterThan(0);
      expect(s.restarts).toBe(1);
    },
    TEST_MS,
  );
});
