// F1 (reliability catalog §4b): Redis SIGKILLed mid-load and started again on its append-only file.
// While it is away the API fails fast (no offline queue) and goes on: init commits its install and
// answers 202, its attribution job held in the process and sent once Redis is back (the reconciler
// covers a process that stops first). After the restart the BullMQ workers reconnect, every acked
// init gets its attribution, and every acked record is stored once. Reports the p99 during the
// outage (an offline-queue stall would show there) and recovery_s (held jobs make it seconds).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DURATION, type Fixture, finish, GRACE_MS, setupFixture, TEST_MS, WORKERS } from './support/fixture.ts';
import { is2xx, Ledger, startLoad } from './support/load.ts';
import { postgresUnavailable } from './support/postgres.ts';
import { redisUnavailable } from './support/redis.ts';
import { sleep } from './support/wait.ts';

const skip = redisUnavailable() ?? postgresUnavailable();
if (skip) {
  console.warn(`F1 skipped: ${skip}`);
}

let fx: Fixture | undefined;
beforeAll(async () => {
  if (!skip) {
    fx = await setupFixture({ redis: true, entry: 'main' });
  }
});
afterAll(async () => {
  await fx?.close();
});

describe.skipIf(skip !== undefined)('F1 Redis killed mid-load', () => {
  it(
    'when Redis is SIGKILLed and restarted under load, then the service stays up, processing resumes, every acked init is attributed, lost = 0 and dup = 0',
    async () => {
      const f = fx as Fixture;
      const redis = f.redis;
      if (!redis) {
        throw new Error('no Redis');
      }
      const ledger = new Ledger();
      const load = startLoad({ ledger, baseUrl: f.svc.baseUrl, token: f.token(), workers: WORKERS });
      await sleep(DURATION.warmupMs);

      const killMs = ledger.now();
      await redis.kill();
      await sleep(DURATION.faultMs);
      await redis.start();
      const healedMs = ledger.now();
      await sleep(DURATION.afterMs);
      await load.stop();

      const outage = ledger.recs.filter((r) => r.startMs >= killMs && r.startMs < healedMs);
      const slow = outage.map((r) => r.endMs - r.startMs).sort((a, b) => a - b);
      const afterHeal = ledger.recs.filter((r) => r.startMs > healedMs);
      const s = await finish(f, ledger, {
        test: 'F1 redis-kill',
        windows: [{ fromMs: killMs, toMs: healedMs + GRACE_MS }],
        healedMs,
        extra: {
          fault_s: Math.round((healedMs - killMs) / 100) / 10,
          outage_sent: outage.length,
          outage_acked: outage.filter(is2xx).length,
          outage_p99_ms: Math.round(slow[Math.max(0, Math.ceil(slow.length * 0.99) - 1)] ?? 0),
        },
      });

      expect(afterHeal.filter(is2xx).length, 'requests acked after Redis came back').toBeGreaterThan(0);
      expect(s.unattributed).toBe(0);
    },
    TEST_MS,
  );
});
