// While Redis hangs (a stopped or partitioned server: the socket stays open and nothing answers),
// every command waits out its commandTimeout (1 s), and a request makes two to four of them. The
// first timeout opens the connection's breaker: its commands then fail at once for COOLDOWN_MS,
// after which one command probes while the others keep failing fast, until one answers. Callers
// already take a failure as Redis being away (limits fail open, the cache misses, enqueues are
// held), so a hung Redis costs a request nothing instead of seconds.
import type { Redis } from 'ioredis';

const COOLDOWN_MS = 5000;

export class RedisUnavailableError extends Error {}

type State = { openUntil: number; probing: boolean };
const states = new WeakMap<Redis, State>();

const timedOut = (err: unknown): boolean => err instanceof Error && err.message === 'Command timed out';

/** Runs `work` (commands on `redis`) unless the connection's breaker is open. */
export async function guarded<T>(redis: Redis, work: () => Promise<T>, now: () => number = Date.now): Promise<T> {
  let s = states.get(redis);
  if (!s) {
    s = { openUntil: 0, probing: false };
    states.set(redis, s);
  }
  let probe = false;
  if (s.openUntil > 0) {
    if (now() < s.openUntil || s.probing) {
      throw new RedisUnavailableError('Redis is not answering (commands skipped for a few seconds)');
    }
    s.probing = probe = true;
  }
  try {
    const value = await work();
    s.openUntil = 0;
    return value;
  } catch (err) {
    // Any other failure is an answer (or a refused connection, which fails fast by itself).
    s.openUntil = timedOut(err) ? now() + COOLDOWN_MS : 0;
    throw err;
  } finally {
    if (probe) {
      s.probing = false;
    }
  }
}
