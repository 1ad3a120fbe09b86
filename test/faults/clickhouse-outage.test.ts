// F3 (reliability catalog §4b): the service's ClickHouse connection fails (refused) and then hangs
// (inserts never answer) under load, through the fault entry (support/fault-service.ts, which wraps
// the real client; production code has no fault hooks). Ingest stays 2xx (the backlog is under its
// cap: facts wait in the Postgres outbox); after recovery stored = acked and dup = 0.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DURATION, type Fixture, finish, setupFixture, TEST_MS, WORKERS } from './support/fixture.ts';
import { Ledger, startLoad } from './support/load.ts';
import { postgresUnavailable } from './support/postgres.ts';
import { redisUnavailable } from './support/redis.ts';
import { sleep } from './support/wait.ts';

const skip = postgresUnavailable();
if (skip) {
  console.warn(`F3 skipped: ${skip}`);
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

async function outboxRows(f: Fixture): Promise<number> {
  const [r] = await f.sql<
    { n: number }[]
  >`SELECT count(*)::int AS n FROM fact_outbox WHERE project_id = ${f.projectId()}`;
  return r?.n ?? 0;
}

describe.skipIf(skip !== undefined)('F3 ClickHouse failing, then hanging', () => {
  it(
    'when the ClickHouse connection refuses and then hangs under load, then ingest stays 2xx, facts wait in the outbox, and after recovery stored = acked with dup = 0',
    async () => {
      const f = fx as Fixture;
      const svc = f.svc;
      const ledger = new Ledger();
      const load = startLoad({ ledger, baseUrl: svc.baseUrl, token: f.token(), workers: WORKERS });
      await sleep(DURATION.warmupMs);

      const downMs = ledger.now();
      svc.send('fault down');
      await svc.child().waitFor('FAULT down', 10_000);
      await sleep(DURATION.faultMs / 2);
      svc.send('fault hang');
      await svc.child().waitFor('FAULT hang', 10_000);
      await sleep(DURATION.faultMs / 2);
      const peak = await outboxRows(f);
      svc.send('heal');
      await svc.child().waitFor('HEALED', 10_000);
      const healedMs = ledger.now();
      await sleep(DURATION.afterMs);
      await load.stop();

      const during = ledger.recs.filter((r) => r.startMs >= downMs && r.startMs < healedMs);
      const s = await finish(f, ledger, {
        test: 'F3 clickhouse-down-then-hang',
        // No window: ingest must stay 2xx throughout.
        windows: [],
        healedMs,
        extra: {
          fault_s: Math.round((healedMs - downMs) / 100) / 10,
          outbox_peak_rows: peak,
          during_sent: during.length,
        },
      });

      expect(peak, 'facts waited in the outbox while ClickHouse was away').toBeGreaterThan(0);
      expect(s.non2xx).toEqual({});
    },
    TEST_MS,
  );
});
