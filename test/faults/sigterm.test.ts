// F7 (reliability catalog §4b): SIGTERM during load. Requests in flight finish, new ones get 503 or a
// refused connection, the process exits 0 within a bound, and after a restart every acked record
// is stored once (lost = 0, dup = 0). Reports the shutdown seconds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DURATION, type Fixture, finish, GRACE_MS, setupFixture, TEST_MS, WORKERS } from './support/fixture.ts';
import { is2xx, Ledger, startLoad } from './support/load.ts';
import { redisUnavailable } from './support/redis.ts';
import { sleep } from './support/wait.ts';

const SHUTDOWN_BOUND_S = 20;
/** What a request that reached a closing server may get: 503 from Fastify, or no connection at all. */
const CLOSED_ANSWERS = new Set<number | string>([503, 'ECONNREFUSED']);
/**
 * A new request may also meet a closed socket (a reset, or undici's UND_ERR_SOCKET "other side
 * closed"): it was written onto a keep-alive socket in the instant the closing server destroyed it
 * as idle (HTTP/1.1's keep-alive race; the server never read it). One processed anyway would show
 * up as a ghost, which this test requires to be 0.
 */
const NEW_REQUEST_ANSWERS = new Set<number | string>([...CLOSED_ANSWERS, 'ECONNRESET', 'UND_ERR_SOCKET']);

let fx: Fixture;
beforeAll(async () => {
  fx = await setupFixture({ redis: redisUnavailable() === undefined, entry: 'main' });
});
afterAll(async () => {
  await fx?.close();
});

describe('F7 SIGTERM during load', () => {
  it(
    'when the service gets SIGTERM under load, then in-flight requests finish, new ones get 503 or are refused, it exits 0 in time, and after a restart lost = 0 and dup = 0',
    async () => {
      const ledger = new Ledger();
      const load = startLoad({ ledger, baseUrl: fx.svc.baseUrl, token: fx.token(), workers: WORKERS });
      await sleep(DURATION.warmupMs);

      const termMs = ledger.now();
      const { exit, seconds } = await fx.svc.stop(SHUTDOWN_BOUND_S * 1000 + 5000);
      const exitedMs = ledger.now();
      await sleep(1000);
      await fx.svc.start('main');
      const healedMs = ledger.now();
      await sleep(DURATION.afterMs);
      await load.stop();

      // In flight at SIGTERM: sent before it, answered after it. Each must have been answered 2xx
      // or turned away as a closing server does; none cut off half-way (reset, 500).
      const inflight = ledger.recs.filter((r) => r.startMs < termMs && r.endMs >= termMs);
      const cut = inflight.filter((r) => !is2xx(r) && !CLOSED_ANSWERS.has(r.status));
      const during = ledger.recs.filter((r) => r.startMs >= termMs && r.startMs <= exitedMs && !is2xx(r));
      const s = await finish(fx, ledger, {
        test: 'F7 sigterm',
        windows: [{ fromMs: termMs, toMs: healedMs + GRACE_MS }],
        healedMs,
        extra: {
          shutdown_s: Math.round(seconds * 100) / 100,
          exit_code: exit.code,
          inflight: inflight.length,
          inflight_cut: cut.length,
        },
      });

      expect(exit).toEqual({ code: 0, signal: null });
      expect(seconds).toBeLessThan(SHUTDOWN_BOUND_S);
      expect(cut, 'in-flight requests cut off by the shutdown').toEqual([]);
      expect(during.filter((r) => !NEW_REQUEST_ANSWERS.has(r.status))).toEqual([]);
      expect(s.ghost).toBe(0);
      expect(s.restarts).toBe(1);
    },
    TEST_MS,
  );
});
