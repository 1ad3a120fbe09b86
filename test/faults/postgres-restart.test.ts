// F2 (reliability catalog §4b): Postgres restarted mid-load, as `pg_ctl restart -m fast` (SIGINT:
// sessions ended, clean checkpoint) and `-m immediate` (SIGQUIT: no checkpoint, crash recovery on
// start). No process exit; failures only while Postgres is away (and a short grace for the pool to
// reconnect); lost = 0; ghost writes (failed requests whose write committed) are reported.
import { afterEach, describe, expect, it } from 'vitest';
import { DURATION, type Fixture, finish, GRACE_MS, setupFixture, TEST_MS, WORKERS } from './support/fixture.ts';
import { is2xx, Ledger, startLoad } from './support/load.ts';
import { postgresUnavailable, type StopMode } from './support/postgres.ts';
import { redisUnavailable } from './support/redis.ts';
import { sleep } from './support/wait.ts';

const skip = postgresUnavailable();
if (skip) {
  console.warn(`F2 skipped: ${skip}`);
}

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe.skipIf(skip !== undefined)('F2 Postgres restarted mid-load', () => {
  it.each<StopMode>(['fast', 'immediate'])(
    'when Postgres restarts with -m %s under load, then the service stays up, fails only inside the window, and lost = 0, dup = 0',
    async (mode) => {
      fx = await setupFixture({ redis: redisUnavailable() === undefined, entry: 'main' });
      const ledger = new Ledger();
      const load = startLoad({ ledger, baseUrl: fx.svc.baseUrl, token: fx.token(), workers: WORKERS });
      await sleep(DURATION.warmupMs);

      const downMs = ledger.now();
      await fx.pg.restart(mode, DURATION.faultMs);
      const healedMs = ledger.now();
      await sleep(DURATION.afterMs);
      await load.stop();

      const firstOk = ledger.recs.find((r) => r.startMs >= healedMs && is2xx(r));
      const s = await finish(fx, ledger, {
        test: `F2 postgres-restart-${mode}`,
        windows: [{ fromMs: downMs, toMs: healedMs + GRACE_MS }],
        healedMs,
        extra: {
          fault_s: Math.round((healedMs - downMs) / 100) / 10,
          first_ok_after_up_s: firstOk ? Math.round((firstOk.endMs - healedMs) / 100) / 10 : null,
        },
      });

      expect(firstOk, 'a request succeeded after Postgres came back').toBeDefined();
      expect(s.restarts).toBe(0);
    },
    TEST_MS,
  );
});
