// A vendor that names the users it refused (read-refusals.ts) ends only those rows dead, with its
// reason; the others count as sent when the vendor processed them (Braze's 2xx with minor errors,
// Mixpanel's failed_records) or go again at once, without the refused ones, when it processed none
// (Braze's fatal 4xx, Amplitude's 400): no user the vendor accepted is sent twice. A refusal of the
// whole request (a bad key: 401/403, Amplitude's `Invalid API key`) or one naming nobody (PostHog's
// 400) keeps the whole batch dead.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalyticsVendor } from '../../src/store/postgres/analytics-connections.ts';
import { attributedInstall } from '../support/client.ts';
import { attemptRows, deliverAt, deliveryEnv, deliveryRows } from '../support/deliveries.ts';
import { connectVendor, FakeAnalytics, signUp } from '../support/fake-analytics.ts';
import { newProject, useHarness } from '../support/harness.ts';

const fake = new FakeAnalytics();
const env = deliveryEnv();
beforeAll(async () => {
  env.ANALYTICS_BASE_URL = await fake.start();
});
afterAll(() => fake.stop());
const h = useHarness({ env });

/** A project connected to the vendor with `n` signed-up users, queued in this order. */
async function usersOf(vendor: AnalyticsVendor, n: number) {
  const p = await newProject(h().deps);
  await connectVendor(h().deps, p, vendor);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = `user-${i}-${randomUUID().slice(0, 8)}`;
    const { iid } = await attributedInstall(h(), p);
    await signUp(h(), p, iid, { id });
    ids.push(id);
  }
  const hitsBefore = fake.hitsOf(vendor).length;
  const newHits = () => fake.hitsOf(vendor).slice(hitsBefore);
  const rows = async () => (await deliveryRows(h().deps, p)).map((r) => [r.status, r.attempts, r.last_error] as const);
  return { p, ids, destination: `analytics:${vendor}`, newHits, rows };
}

const brazeIds = (body: string) =>
  (JSON.parse(body) as { attributes: { external_id: string }[] }).attributes.map((a) => a.external_id);
const amplitudeIds = (body: string) =>
  (JSON.parse(new URLSearchParams(body).get('identification') ?? '[]') as { user_id: string }[]).map((x) => x.user_id);

describe('the vendor processed the others', () => {
  it('when Braze answers 201 with a minor error at index 1, then that user is dead with the reason and the others are sent, in one request', async () => {
    const u = await usersOf('braze', 3);
    const answer = {
      message: 'success',
      attributes_processed: 2,
      errors: [{ type: "'external_id' is invalid", input_array: 'attributes', index: 1 }],
    };
    fake.answerNext('braze', 1, 201, JSON.stringify(answer));

    const out = await deliverAt(h().deps, u.p, u.destination);

    expect(out).toMatchObject({ claimed: 3, sent: 2, dead: 1, retry: false });
    expect(await u.rows()).toEqual([
      ['sent', 1, null],
      ['dead', 1, "HTTP 201: Braze refused this user: 'external_id' is invalid"],
      ['sent', 1, null],
    ]);
    expect(u.newHits()).toHaveLength(1);
    const log = (await attemptRows(h().deps, u.p)).map((a) => [a.outcome, a.http_status, a.events]);
    expect(log.sort()).toEqual([
      ['dead', 201, 1],
      ['sent', 201, 2],
    ]);
  });

  it('when Mixpanel answers 400 with failed_records, then only those users are dead and the ingested ones are sent, never again', async () => {
    const u = await usersOf('mixpanel', 3);
    const answer = {
      code: 400,
      error: 'some data points in the request failed validation',
      failed_records: [{ index: 2, $distinct_id: u.ids[2], message: '$distinct_id is invalid' }],
      num_records_imported: 2,
      status: 0,
    };
    fake.answerNext('mixpanel', 1, 400, JSON.stringify(answer));

    const out = await deliverAt(h().deps, u.p, u.destination);
    const later = await deliverAt(h().deps, u.p, u.destination, Date.now() + 60_000);

    expect(out).toMatchObject({ claimed: 3, sent: 2, dead: 1, retry: false });
    expect(later.claimed).toBe(0);
    expect(await u.rows()).toEqual([
      ['sent', 1, null],
      ['sent', 1, null],
      ['dead', 1, 'HTTP 400: Mixpanel refused this user: $distinct_id is invalid'],
    ]);
    expect(u.newHits()).toHaveLength(1);
    expect(u.newHits()[0]?.path).toBe('/engage?verbose=1&strict=1');
  });
});

describe('the vendor processed none', () => {
  it('when Amplitude answers 400 naming index 0, then that user is dead and the others go again at once without it', async () => {
    const u = await usersOf('amplitude', 3);
    const answer = {
      code: 400,
      error: 'Invalid field values on some events',
      events_with_invalid_fields: { user_id: [0] },
    };
    fake.answerNext('amplitude', 1, 400, JSON.stringify(answer));

    const out = await deliverAt(h().deps, u.p, u.destination);

    expect(out).toMatchObject({ claimed: 3, sent: 2, dead: 1, retry: false });
    expect(u.newHits().map((x) => amplitudeIds(x.body))).toEqual([u.ids, u.ids.slice(1)]);
    expect(await u.rows()).toEqual([
      ['dead', 1, 'HTTP 400: Amplitude refused this user: Invalid field values on some events (user_id)'],
      ['sent', 1, null],
      ['sent', 1, null],
    ]);
  });

  it('when Braze answers a fatal 400 naming index 1, then that user is dead and the others are sent in a second request', async () => {
    const u = await usersOf('braze', 2);
    const answer = {
      message: 'Invalid attributes',
      errors: [{ type: 'bad value', input_array: 'attributes', index: 1 }],
    };
    fake.answerNext('braze', 1, 400, JSON.stringify(answer));

    const out = await deliverAt(h().deps, u.p, u.destination);

    expect(out).toMatchObject({ claimed: 2, sent: 1, dead: 1 });
    expect(u.newHits().map((x) => brazeIds(x.body))).toEqual([u.ids, u.ids.slice(0, 1)]);
    expect((await u.rows()).map((r) => r[0])).toEqual(['sent', 'dead']);
  });

  it('when every resend is refused again, then after MAX_RESENDS the rest is given back due and untried', async () => {
    const u = await usersOf('amplitude', 4);
    const refuseFirst = (field: string) =>
      JSON.stringify({ code: 400, error: 'Invalid field values', events_with_invalid_fields: { [field]: [0] } });
    fake.answerNext('amplitude', 1, 400, refuseFirst('a'));
    fake.answerNext('amplitude', 1, 400, refuseFirst('b'));
    fake.answerNext('amplitude', 1, 400, refuseFirst('c'));

    const out = await deliverAt(h().deps, u.p, u.destination);

    expect(out).toMatchObject({ claimed: 4, sent: 0, dead: 3, retry: true });
    expect(u.newHits()).toHaveLength(3);
    expect((await u.rows()).map((r) => [r[0], r[1]])).toEqual([
      ['dead', 1],
      ['dead', 1],
      ['dead', 1],
      ['pending', 0],
    ]);
    const again = await deliverAt(h().deps, u.p, u.destination);
    expect(again).toMatchObject({ claimed: 1, sent: 1 });
  });
});

describe('the whole request refused', () => {
  it.each([
    ['braze', 401, { message: 'Invalid API key', errors: [{ type: 'x', input_array: 'attributes', index: 0 }] }],
    ['amplitude', 400, { code: 400, error: 'Invalid API key: [redacted]', events_with_invalid_fields: { a: [0] } }],
    ['amplitude', 400, { code: 400, error: 'Request missing required field', missing_field: 'api_key' }],
    ['posthog', 400, { type: 'validation_error', code: 'invalid_payload', detail: 'Malformed request' }],
  ] as const)('when %s answers %i (%j), then every row of the batch is dead', async (vendor, status, answer) => {
    const u = await usersOf(vendor, 2);
    fake.answerNext(vendor, 1, status, JSON.stringify(answer));

    const out = await deliverAt(h().deps, u.p, u.destination);

    expect(out).toMatchObject({ claimed: 2, sent: 0, dead: 2 });
    expect(u.newHits()).toHaveLength(1);
    expect((await u.rows()).map((r) => r[0])).toEqual(['dead', 'dead']);
  });
});
