// src/store/redis/breaker.ts: a command that times out (a hung Redis) opens the connection's breaker;
// its commands then fail at once for 5 s, then one probes while the rest keep failing fast, and the
// first answer closes it. Other failures (a refused connection, an error reply) leave it closed.
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { guarded, RedisUnavailableError } from '../../src/store/redis/breaker.ts';

const timeout = () => Promise.reject(new Error('Command timed out'));

function clock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('guarded', () => {
  it('when a command times out, then the next commands fail at once without reaching Redis, for 5 s', async () => {
    const redis = {} as Redis;
    const c = clock();
    let reached = 0;
    const work = async () => {
      reached++;
      return 'OK';
    };

    await expect(guarded(redis, timeout, c.now)).rejects.toThrow('Command timed out');
    await expect(guarded(redis, work, c.now)).rejects.toBeInstanceOf(RedisUnavailableError);
    c.advance(4999);
    await expect(guarded(redis, work, c.now)).rejects.toBeInstanceOf(RedisUnavailableError);

    expect(reached).toBe(0);
  });

  it('when the cooldown is over, then one command probes, the others fail fast, and its answer closes the breaker', async () => {
    const redis = {} as Redis;
    const c = clock();
    await guarded(redis, timeout, c.now).catch(() => {});
    c.advance(5000);
    let answer: (v: string) => void = () => {};
    const probe = guarded(redis, () => new Promise<string>((resolve) => (answer = resolve)), c.now);

    await expect(guarded(redis, async () => 'other', c.now)).rejects.toBeInstanceOf(RedisUnavailableError);
    answer('PONG');

    expect(await probe).toBe('PONG');
    expect(await guarded(redis, async () => 'again', c.now)).toBe('again');
  });

  it('when the probe times out too, then the breaker opens for another 5 s', async () => {
    const redis = {} as Redis;
    const c = clock();
    await guarded(redis, timeout, c.now).catch(() => {});
    c.advance(5000);

    await expect(guarded(redis, timeout, c.now)).rejects.toThrow('Command timed out');
    c.advance(4999);
    await expect(guarded(redis, async () => 'x', c.now)).rejects.toBeInstanceOf(RedisUnavailableError);
  });

  it('when a command fails otherwise (connection refused), then the breaker stays closed', async () => {
    const redis = {} as Redis;
    const c = clock();

    await expect(guarded(redis, () => Promise.reject(new Error("Stream isn't writeable")), c.now)).rejects.toThrow(
      "Stream isn't writeable",
    );
    expect(await guarded(redis, async () => 'OK', c.now)).toBe('OK');
  });

  it('when two connections are used, then a timeout on one leaves the other alone', async () => {
    const c = clock();
    const hung = {} as Redis;
    const fine = {} as Redis;
    await guarded(hung, timeout, c.now).catch(() => {});

    expect(await guarded(fine, async () => 'OK', c.now)).toBe('OK');
  });
});
