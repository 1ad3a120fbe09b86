// GET /api/v1/audiences/export (product notes "Remarketing": CSV segment downloads for Meta Custom
// Audiences and Google Customer Match; README "Audience exports"). Users are made through the real
// client routes and their events and payments through the server-side capture routes with the clock
// pinned, then moved to ClickHouse by the fact writer: the export reads what production writes.
// Windows are project-local days (+5:30 here); hashes are SHA-256 of the normalized values (their
// normalization is pinned against sha256sum vectors in test/unit/audience-identifiers.test.ts).
// The segment itself (inactivity, payments, filters, isolation, deletion, paging):
// audiences-segments.test.ts.
import { createHash, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventAt, exportRequest, landFacts, seedUser } from '../../support/audiences.ts';
import { attributedInstall, useClientHarness } from '../../support/client.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';

const h = useClientHarness();

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const G1 = '38400000-8cf0-11bd-b23e-10b96e40000d';
const I1 = 'AB0C1D2E-3F40-4A5B-8C6D-7E8F90A1B2C3';
const WINDOW = { event: 'purchase', from: '2025-04-01', to: '2025-04-30' };
const bad = (msg: string) => ({ msg, status: 400 });

function trailers(res: { trailers?: Record<string, string> }) {
  return { rows: res.trailers?.['x-audience-rows'], skipped: res.trailers?.['x-audience-skipped'] };
}

/**
 * A project in Asia/Kolkata (+5:30) whose users did `purchase` around April 2025: u-a (email, phone,
 * GAID; 00:30 on Apr 1 local, 19:00 UTC the day before), u-b (email only; 23:30 on Apr 30 local),
 * u-c (an iOS IDFA, and a phone without country code; twice), u-d (a phone that is no number),
 * u-e (another event), u-f (just outside both ends of the window).
 */
async function windowProject(): Promise<TestProject> {
  const p = await newProject(h().deps, { timezone: 'Asia/Kolkata' });
  await seedUser(h(), p, { userId: 'u-a', email: ' Ana@Example.com ', phone: '+91 98765 43210', gaid: G1 });
  await seedUser(h(), p, { userId: 'u-b', email: 'bo@example.com' });
  await seedUser(h(), p, { userId: 'u-c', platform: 'IOS', idfa: I1, phone: '09876 543211' });
  await seedUser(h(), p, { userId: 'u-d', phone: 'unknown' });
  await seedUser(h(), p, { userId: 'u-e', email: 'eve@example.com' });
  await seedUser(h(), p, { userId: 'u-f', email: 'fay@example.com' });
  await eventAt(h(), p, 'u-a', 'purchase', '2025-03-31T19:00:00Z');
  await eventAt(h(), p, 'u-b', 'purchase', '2025-04-30T18:00:00Z');
  await eventAt(h(), p, 'u-c', 'purchase', '2025-04-15T10:00:00Z');
  await eventAt(h(), p, 'u-c', 'purchase', '2025-04-16T10:00:00Z');
  await eventAt(h(), p, 'u-d', 'purchase', '2025-04-10T10:00:00Z');
  await eventAt(h(), p, 'u-e', 'other_event', '2025-04-10T10:00:00Z');
  await eventAt(h(), p, 'u-f', 'purchase', '2025-03-31T18:00:00Z');
  await eventAt(h(), p, 'u-f', 'purchase', '2025-04-30T18:40:00Z');
  await landFacts(h());
  return p;
}

describe('200', () => {
  let p: TestProject;
  beforeAll(async () => {
    p = await windowProject();
  });

  it('when the meta format is asked, then the CSV has hashed email and phone and the raw MADID, in user id order', async () => {
    const res = await exportRequest(h(), p, { ...WINDOW, format: 'meta' });

    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="audience-meta-2025-04-01-2025-04-30.csv"');
    expect(res.body).toBe(
      [
        'email,phone,madid',
        `${sha('ana@example.com')},${sha('919876543210')},${G1}`,
        `${sha('bo@example.com')},,`,
        `,,${I1.toLowerCase()}`,
        '',
      ].join('\n'),
    );
    expect(trailers(res)).toEqual({ rows: '3', skipped: '1' });
  });

  it('when the window is read, then its ends are project-local days (+5:30), not UTC days', async () => {
    const first = await exportRequest(h(), p, { ...WINDOW, to: '2025-04-01', format: 'plain' });
    const before = await exportRequest(h(), p, { ...WINDOW, from: '2025-03-31', to: '2025-03-31', format: 'plain' });

    expect(first.body.split('\n').map((l) => l.split(',')[0])).toEqual(['user_id', 'u-a', '']);
    expect(before.body.split('\n').map((l) => l.split(',')[0])).toEqual(['user_id', 'u-f', '']);
  });

  it('when the google formats are asked, then contact and device ids go to separate files with their headers', async () => {
    const contact = await exportRequest(h(), p, { ...WINDOW, format: 'google' });
    const devices = await exportRequest(h(), p, { ...WINDOW, format: 'GOOGLE_DEVICE_IDS' });

    expect(contact.body).toBe(
      ['Email,Phone', `${sha('ana@example.com')},${sha('+919876543210')}`, `${sha('bo@example.com')},`, ''].join('\n'),
    );
    expect(trailers(contact)).toEqual({ rows: '2', skipped: '2' });
    expect(devices.body).toBe(['Mobile Device ID', G1, I1.toLowerCase(), ''].join('\n'));
    expect(trailers(devices)).toEqual({ rows: '2', skipped: '2' });
  });

  it('when phone_country_code is given, then a phone stored without one becomes usable', async () => {
    const res = await exportRequest(h(), p, { ...WINDOW, format: 'plain', phone_country_code: '91' });

    expect(res.body).toBe(
      [
        'user_id,email_sha256,phone_sha256,madid',
        `u-a,${sha('ana@example.com')},${sha('+919876543210')},${G1}`,
        `u-b,${sha('bo@example.com')},,`,
        `u-c,,${sha('+919876543211')},${I1.toLowerCase()}`,
        '',
      ].join('\n'),
    );
    expect(trailers(res)).toEqual({ rows: '3', skipped: '1' });
  });

  it('when any answer is read, then no raw email or phone is in it', async () => {
    for (const format of ['meta', 'google', 'google_device_ids', 'plain']) {
      const res = await exportRequest(h(), p, { ...WINDOW, format, phone_country_code: '91' });
      expect(res.body).not.toMatch(/@|example|98765|\+91/i);
    }
  });
});

describe('400', () => {
  const p = () => newProject(h().deps);
  const base = { ...WINDOW, format: 'meta' };
  it.each<[string, Record<string, string | string[]>, string]>([
    [
      'neither event nor payment_type',
      { from: '2025-04-01', to: '2025-04-30', format: 'meta' },
      'Give one of event or payment_type.',
    ],
    ['both event and payment_type', { ...base, payment_type: 'any' }, 'Give either event or payment_type, not both.'],
    [
      'an unknown payment_type',
      { from: '2025-04-01', to: '2025-04-30', format: 'meta', payment_type: 'gift' },
      "Invalid payment_type 'gift'. Use any or a payment type (FIRST_PAYMENT, ONE_TIME, DEFAULT, …).",
    ],
    ['an event of 256 characters', { ...base, event: 'e'.repeat(256) }, 'event must be at most 255 characters.'],
    [
      'no from',
      { event: 'x', to: '2025-04-30', format: 'meta' },
      'from is required: a calendar date in the form YYYY-MM-DD.',
    ],
    [
      'no to',
      { event: 'x', from: '2025-04-01', format: 'meta' },
      'to is required: a calendar date in the form YYYY-MM-DD.',
    ],
    [
      'from not a calendar date',
      { ...base, from: '2025-02-30' },
      "Invalid from '2025-02-30'. Use a calendar date in the form YYYY-MM-DD.",
    ],
    ['from after to', { ...base, from: '2025-05-01' }, "'from' must not be after 'to'."],
    ['from given twice', { ...base, from: ['2025-04-01', '2025-04-02'] }, 'from must be given at most once.'],
    ['no format', { ...WINDOW }, 'format is required: meta, google, google_device_ids or plain.'],
    [
      'an unknown format',
      { ...base, format: 'csv' },
      "Invalid format 'csv'. Use meta, google, google_device_ids or plain.",
    ],
    [
      'inactive_days 0',
      { ...base, inactive_days: '0' },
      "Invalid inactive_days '0'. Use a whole number of days from 1 to 3650.",
    ],
    [
      'inactive_days 3651',
      { ...base, inactive_days: '3651' },
      "Invalid inactive_days '3651'. Use a whole number of days from 1 to 3650.",
    ],
    [
      'inactive_days 1e2',
      { ...base, inactive_days: '1e2' },
      "Invalid inactive_days '1e2'. Use a whole number of days from 1 to 3650.",
    ],
    [
      'inactive_by unknown',
      { ...base, inactive_days: '7', inactive_by: 'never' },
      "Invalid inactive_by 'never'. Use app_open or action.",
    ],
    ['inactive_by without days', { ...base, inactive_by: 'action' }, 'inactive_by needs inactive_days.'],
    ['platform web', { ...base, platform: 'web' }, "Invalid platform 'web'. Use ios or android."],
    [
      'phone_country_code +91',
      { ...base, phone_country_code: '+91' },
      "Invalid phone_country_code '+91'. Use the 1 to 3 digits of a calling code, such as 1 or 91.",
    ],
    [
      'phone_country_code 1234',
      { ...base, phone_country_code: '1234' },
      "Invalid phone_country_code '1234'. Use the 1 to 3 digits of a calling code, such as 1 or 91.",
    ],
  ])('when the query has %s, then 400 with its text', async (_case, query, msg) => {
    const project = await p();
    const res = await h().app.inject({
      method: 'GET',
      url: '/api/v1/audiences/export',
      query,
      headers: project.headers,
    });

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(bad(msg));
  });
});

describe('401 and 404', () => {
  it.each([
    ['no key', {}],
    ['a wrong key', { 'service-key': 'sk_wrong' }],
  ])('when the request has %s, then 401 Unauthorized access.', async (_case, headers) => {
    const res = await h().app.inject({
      method: 'GET',
      url: '/api/v1/audiences/export',
      query: { ...WINDOW, format: 'meta' },
      headers,
    });

    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ msg: 'Unauthorized access.', status: 401 });
  });

  it("when campaign names no campaign of the key's project, then 404 Campaign not found!", async () => {
    const other = await newProject(h().deps);
    const { campaign } = await attributedInstall(h(), other);
    const p = await newProject(h().deps);

    const res = await exportRequest(h(), p, { ...WINDOW, format: 'meta', campaign: campaign.displayId });

    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ msg: 'Campaign not found!', status: 404 });
  });
});

describe('429 with rate limits on', () => {
  const limited = useHarness({ env: { RATE_LIMITS_ENABLED: 'true', RATE_LIMIT_IP_PER_SECOND: '1000000' } });

  it('when a key exports twice within a minute, then 429 with Retry-After: 60, and its report budget is untouched', async () => {
    const { app, deps } = limited();
    const p = await newProject(deps);
    const real = deps.now;
    const instant = real();
    deps.now = () => instant;
    try {
      const get = (url: string) => app.inject({ method: 'GET', url, headers: p.headers });
      const q = new URLSearchParams({ ...WINDOW, format: 'meta', x: randomUUID() }).toString();
      const first = await get(`/api/v1/audiences/export?${q}`);
      const second = await get(`/api/v1/audiences/export?${q}`);
      const report = await get('/api/v1/reporting/campaigns');

      expect(first.statusCode).toBe(200);
      expect(second.statusCode).toBe(429);
      expect(second.headers['retry-after']).toBe('60');
      expect(second.json()).toEqual({ msg: 'Rate limit exceeded. Please try again later.', status: 429 });
      expect(report.statusCode).toBe(200);
    } finally {
      deps.now = real;
    }
  });

  it('when a request is refused (400, then 404), then it takes no budget: the corrected one gets its file', async () => {
    const { app, deps } = limited();
    const p = await newProject(deps);
    const real = deps.now;
    const instant = real();
    deps.now = () => instant;
    try {
      const get = (query: Record<string, string>) =>
        app.inject({ method: 'GET', url: '/api/v1/audiences/export', query, headers: p.headers });
      const badQuery = await get({ ...WINDOW, format: 'csv' });
      const badCampaign = await get({ ...WINDOW, format: 'meta', campaign: 'no-such-campaign' });
      const corrected = await get({ ...WINDOW, format: 'meta' });
      const again = await get({ ...WINDOW, format: 'meta' });

      expect(badQuery.statusCode).toBe(400);
      expect(badCampaign.json()).toEqual({ msg: 'Campaign not found!', status: 404 });
      expect(corrected.statusCode).toBe(200);
      expect(corrected.body).toBe('email,phone,madid\n');
      expect(again.statusCode).toBe(429);
      expect(again.headers['retry-after']).toBe('60');
      expect(again.json()).toEqual({ msg: 'Rate limit exceeded. Please try again later.', status: 429 });
    } finally {
      deps.now = real;
    }
  });
});
