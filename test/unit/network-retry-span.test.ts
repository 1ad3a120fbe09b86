// How long a network's claim is waited for, on the attribution queue's backoff (500 ms doubling,
// capped at 5 s): an outage (5xx, 429, timeouts) gets NETWORK_RETRY_LIMIT retries, about 7.5 s;
// Apple's 404 ("token not known yet", right after the app made it) gets APPLE_NOT_YET_RETRY_LIMIT,
// reaching past Apple's advice of retrying every 5 s up to 3 times (15 s).
import { describe, expect, it } from 'vitest';
import { APPLE_NOT_YET_RETRY_LIMIT } from '../../src/domain/attribution/apple-search-ads.ts';
import { NETWORK_RETRY_LIMIT } from '../../src/domain/attribution/resolvers.ts';
import { QUEUE_OPTIONS, QUEUES, retryDelayMs } from '../../src/queue/names.ts';

/** When the last of `retries` retries runs, counted from the first call. */
function spanMs(retries: number): number {
  const o = QUEUE_OPTIONS[QUEUES.attribution];
  if (!o) {
    throw new Error('no attribution queue options');
  }
  let span = 0;
  for (let made = 1; made <= retries; made++) {
    span += retryDelayMs(o, made);
  }
  return span;
}

describe('network claim retry spans', () => {
  it("when Apple answers 404 at every try, then the retries reach past Apple's advised 3 × 5 s", () => {
    // Was: 404 spent the outage budget, whose last retry ran at 7.5 s.
    expect(spanMs(APPLE_NOT_YET_RETRY_LIMIT)).toBeGreaterThanOrEqual(15_000);
  });

  it('when a network is down, then its retries span about 7.5 s before deciding without the claim', () => {
    expect(spanMs(NETWORK_RETRY_LIMIT)).toBe(7_500);
  });
});
