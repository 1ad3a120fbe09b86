// Analytics deliveries follow the rules of every outgoing delivery (README "Outgoing deliveries"):
// held while the install's attribution is undecided and filled by the decision; 5xx and 429 retried
// with backoff, other 4xx (and Mixpanel's refusal inside a 200) dead at once; every attempt logged;
// a deleted user's rows never sent, even when a batch already holds them; a removed connection ends
// its rows dead; the vendor key appears in no row, log row or log line, even when the vendor's
// answer quotes it (Amplitude answers a wrong key with {"code":400,"error":"Invalid API key: <key>"}).
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverAnalytics } from '../../src/domain/analytics/deliver-analytics.ts';
import { createLogger } from '../../src/lib/logger.ts';
import type { AnalyticsVendor } from '../../src/store/postgres/analytics-connections.ts';
import { claimDueDeliveries } from '../../src/store/postgres/deliveries.ts';
import { attribute, attributedInstall } from '../support/client.ts';
import { attemptRows, deliverAt, deliveryEnv, deliveryRows } from '../support/deliveries.ts';
import { connectVendor, FakeAnalytics, signUp, VENDOR_KEYS } from '../support/fake-analytics.ts';
import { newProject, type TestProject, useHarness } from '../support/harness.ts';
import { initAndroid } from '../support/held-webhooks.ts';

const fake = new FakeAnalytics();
const env = deliveryEnv();
beforeAll(async () => {
  env.ANALYTICS_BASE_URL = await fake.start();
});
afterAll(() => fake.stop());
const h = useHarness({ env });

async function connectedUser(vendor: AnalyticsVendor, userId: string) {
  const p = await newProject(h().deps);
  await connectVendor(h().deps, p, vendor);
  const { iid } = await attributedInstall(h(), p);
  await signUp(h(), p, iid, { id: userId, mixpanel_distinct_id: `mp-${userId}` });
  return { p, iid, destination: `analytics:${vendor}` };
}

/** A logger at trace level whose lines are kept in `text`. */
function captureLog() {
  const out = { text: '' };
  const log = createLogger(
    'trace',
    new Writable({
      write(chunk, _enc, done) {
        out.text += String(chunk);
        done();
      },
    }),
  );
  return { log, out };
}

const rowsOf = async (p: TestProject) => (await deliveryRows(h().deps, p)).filter((r) => r.destination !== '');

describe('held for the install attribution', () => {
  it('when the user signs up before the decision, then the row waits and goes out with the decided properties', async () => {
    const p = await newProject(h().deps);
    await connectVendor(h().deps, p, 'mixpanel');
    const iid = await initAndroid(h(), p);
    await signUp(h(), p, iid, { id: 'held-1', mixpanel_distinct_id: 'mp-held-1' });
    const [held] = await rowsOf(p);
    expect(held?.payload).toEqual({ ids: { distinct_id: 'mp-held-1' }, properties: null });

    const before = await deliverAt(h().deps, p, 'analytics:mixpanel');
    await attribute(h(), p, iid);
    const after = await deliverAt(h().deps, p, 'analytics:mixpanel');

    expect(before.claimed).toBe(0);
    expect(after).toMatchObject({ claimed: 1, sent: 1 });
    const [update] = JSON.parse(fake.hitsOf('mixpanel').at(-1)?.body ?? '[]');
    expect(update.$distinct_id).toBe('mp-held-1');
    expect(update.$set).toMatchObject({ attribution_organic: true, attribution_network: 'ORGANIC' });
    expect((await rowsOf(p)).map((r) => r.status)).toEqual(['sent']);
  });
});

describe('answers', () => {
  it.each([
    [500, 'pending', 1],
    [429, 'pending', 1],
    [400, 'dead', 1],
    [401, 'dead', 1],
  ])('when Braze answers %i, then the row is %s after %i attempt', async (status, state, attempts) => {
    const { p, destination } = await connectedUser('braze', `u-${status}`);
    fake.answerNext('braze', 1, status, '{"message":"nope"}');

    const out = await deliverAt(h().deps, p, destination);

    const [row] = await rowsOf(p);
    expect(row).toMatchObject({ status: state, attempts, last_error: `HTTP ${status}: {"message":"nope"}` });
    expect(out.retry).toBe(state === 'pending');
    expect((await attemptRows(h().deps, p)).map((a) => [a.outcome, a.http_status])).toEqual([
      [state === 'pending' ? 'retry' : 'dead', status],
    ]);
  });

  it('when a 5xx is followed by a success after the backoff, then the row is sent once', async () => {
    const { p, destination } = await connectedUser('braze', 'u-retry');
    fake.answerNext('braze', 1, 503);

    await deliverAt(h().deps, p, destination);
    const early = await deliverAt(h().deps, p, destination);
    const late = await deliverAt(h().deps, p, destination, Date.now() + 5_000);

    expect(early.claimed).toBe(0);
    expect(late).toMatchObject({ claimed: 1, sent: 1 });
    expect((await rowsOf(p)).map((r) => [r.status, r.attempts])).toEqual([['sent', 2]]);
  });

  it('when Mixpanel answers 200 with status 0, then the batch is dead with its reason', async () => {
    const { p, destination } = await connectedUser('mixpanel', 'u-mp-refused');
    fake.answerNext('mixpanel', 1, 200, '{"status":0,"error":"$distinct_id is invalid"}');

    await deliverAt(h().deps, p, destination);

    const [row] = await rowsOf(p);
    expect(row).toMatchObject({
      status: 'dead',
      last_error: 'HTTP 200: Mixpanel refused the batch: $distinct_id is invalid',
    });
  });
});

describe('deleted users and removed connections', () => {
  it('when the user is deleted, then the row is gone and nothing is sent', async () => {
    const { p, destination } = await connectedUser('braze', 'u-deleted');
    const sent = fake.hitsOf('braze').length;

    const del = await h().app.inject({ method: 'DELETE', url: '/api/v1/users/u-deleted', headers: p.headers });
    const out = await deliverAt(h().deps, p, destination);

    expect(del.statusCode).toBe(200);
    expect(out.claimed).toBe(0);
    expect(await rowsOf(p)).toEqual([]);
    expect(fake.hitsOf('braze')).toHaveLength(sent);
  });

  it('when the user is deleted after a batch claimed the row, then the batch does not send it', async () => {
    const { p, destination } = await connectedUser('braze', 'u-deleted-late');
    const sent = fake.hitsOf('braze').length;
    const job = { projectId: p.project.id, destination };
    const claimed = await claimDueDeliveries(h().deps.sql, { ...job, now: new Date(), limit: 75, leaseMs: 60_000 });

    await h().app.inject({ method: 'DELETE', url: '/api/v1/users/u-deleted-late', headers: p.headers });
    const out = await deliverAnalytics(h().deps, job, 'braze', claimed);

    expect(claimed).toHaveLength(1);
    expect(out).toMatchObject({ claimed: 1, sent: 0 });
    expect(fake.hitsOf('braze')).toHaveLength(sent);
  });

  it('when the connection is removed before the row goes out, then the row is dead with the reason', async () => {
    const { p, destination } = await connectedUser('braze', 'u-removed');

    const del = await h().app.inject({ method: 'DELETE', url: '/api/v1/connections/braze', headers: p.headers });
    await deliverAt(h().deps, p, destination);

    expect(del.json()).toEqual({ msg: 'Braze connection removed.', status: 200, data: { removed: true } });
    expect((await rowsOf(p)).map((r) => [r.status, r.last_error])).toEqual([
      ['dead', 'not sent: the braze connection was removed'],
    ]);
  });
});

describe('secrets', () => {
  it('when rows are queued, sent, retried and logged, then the vendor key is in no row and no log line', async () => {
    const { log, out } = captureLog();
    const { p, destination } = await connectedUser('braze', 'u-secret');
    fake.answerNext('braze', 1, 500);

    await deliverAt({ ...h().deps, log }, p, destination);
    await deliverAt({ ...h().deps, log }, p, destination, Date.now() + 5_000);

    const stored = JSON.stringify(await rowsOf(p)) + JSON.stringify(await attemptRows(h().deps, p));
    const [conn] = await h().deps.sql<{ key_enc: string }[]>`
      SELECT key_enc FROM analytics_connections WHERE project_id = ${p.project.id}`;
    expect(stored).not.toContain(VENDOR_KEYS.braze);
    expect(conn?.key_enc).not.toContain(VENDOR_KEYS.braze);
    expect(out.text).not.toContain(VENDOR_KEYS.braze);
    expect(fake.hitsOf('braze').at(-1)?.headers.authorization).toBe(`Bearer ${VENDOR_KEYS.braze}`);
  });

  it.each([
    ['amplitude', 400, (k: string) => `{"code":400,"error":"Invalid API key: ${k}"}`, 'Invalid API key'],
    ['braze', 401, (k: string) => `{"message":"Invalid API key: ${k}"}`, 'Invalid API key'],
    ['mixpanel', 200, (k: string) => `{"status":0,"error":"token ${k} is not valid"}`, 'Mixpanel refused'],
    ['posthog', 401, (k: string) => `{"detail":"Project API key invalid: ${k}"}`, 'Project API key invalid'],
  ] as const)(
    'when %s answers %i quoting the key, then the row is dead and the key is in no row, log row or log line',
    async (vendor, status, answer, kept) => {
      const { log, out } = captureLog();
      const { p, destination } = await connectedUser(vendor, `u-echo-${vendor}`);
      fake.answerNext(vendor, 1, status, answer(VENDOR_KEYS[vendor]));

      const res = await deliverAt({ ...h().deps, log }, p, destination);

      expect(res).toMatchObject({ claimed: 1, dead: 1 });
      const stored = JSON.stringify(await rowsOf(p)) + JSON.stringify(await attemptRows(h().deps, p));
      expect(stored).toContain(kept);
      expect(stored).toContain('[redacted]');
      expect(stored).not.toContain(VENDOR_KEYS[vendor]);
      expect(out.text).not.toContain(VENDOR_KEYS[vendor]);
    },
  );

  it('when a 5xx quotes the key percent-encoded and again where the summary is cut, then no part of it is kept', async () => {
    const { p, destination } = await connectedUser('amplitude', 'u-echo-cut');
    const key = VENDOR_KEYS.amplitude;
    // As sent, the second key starts at character 481 and the 500-character summary cuts it.
    fake.answerNext('amplitude', 1, 503, `api_key=${encodeURIComponent(key)} ${'x'.repeat(440)}${key}`);

    const res = await deliverAt(h().deps, p, destination);

    expect(res).toMatchObject({ claimed: 1, retry: true });
    const stored = JSON.stringify(await rowsOf(p)) + JSON.stringify(await attemptRows(h().deps, p));
    expect(stored).toContain('api_key=[redacted]');
    expect(stored).not.toContain(key.slice(0, 13));
  });
});
