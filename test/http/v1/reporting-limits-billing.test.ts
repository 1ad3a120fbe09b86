// GET /api/v1/reporting/campaigns limits (api-spec Limits: 1 request per minute per server key,
// 429 `Rate limit exceeded. Please try again later.` with Retry-After: 60) and billing (402 with
// payment_link), with the rate limits on as in production.
import { describe, expect, it } from 'vitest';
import { setBilling } from '../../../src/domain/projects/set-billing.ts';
import { newProject, useHarness } from '../../support/harness.ts';

const h = useHarness();

const get = (headers: Record<string, string>, query = '') =>
  h().app.inject({ method: 'GET', url: `/api/v1/reporting/campaigns${query}`, headers });

describe('reporting: limits and billing', () => {
  it('when a key sends a second report within the minute, then 429 with Retry-After: 60; another key is not held', async () => {
    const p = await newProject(h().deps);
    const q = await newProject(h().deps);

    // Windows are aligned to the clock: pin it mid-minute so both requests share one window.
    const real = h().deps.now;
    const mid = Math.floor(Date.now() / 60_000) * 60_000 + 30_000;
    h().deps.now = () => mid;
    let first: Awaited<ReturnType<typeof get>>;
    let second: Awaited<ReturnType<typeof get>>;
    let other: Awaited<ReturnType<typeof get>>;
    try {
      first = await get(p.headers);
      second = await get(p.headers, '?view=retargeting');
      other = await get(q.headers);
    } finally {
      h().deps.now = real;
    }

    expect(first.statusCode).toBe(200);
    expect(second.statusCode).toBe(429);
    expect(second.headers['retry-after']).toBe('60');
    expect(second.json()).toEqual({ msg: 'Rate limit exceeded. Please try again later.', status: 429 });
    expect(other.statusCode).toBe(200);
  });

  it('when billing is suspended without a link, then 402 carries payment_link null and no data', async () => {
    const p = await newProject(h().deps);
    await setBilling(h().deps, p.project.id, { suspended: 'true' });

    const res = await get(p.headers);

    expect(res.statusCode).toBe(402);
    expect(res.json()).toEqual({
      msg: 'Billing account suspended. Complete the payment at payment_link to restore reporting.',
      status: 402,
      payment_link: null,
    });
  });

  it('when the key is wrong, then 401 and the key of the project is not charged a request', async () => {
    const p = await newProject(h().deps);

    const bad = await get({ 'service-key': `${p.serverKey}x` });
    const good = await get(p.headers);

    expect(bad.statusCode).toBe(401);
    expect(bad.json()).toEqual({ msg: 'Unauthorized access.', status: 401 });
    expect(good.statusCode).toBe(200);
  });
});
