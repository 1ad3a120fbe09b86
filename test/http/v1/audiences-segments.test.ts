// GET /api/v1/audiences/export, the segment itself (README "Audience exports"): inactivity by app
// opens (the N × 24 h edge included) or by the action, payment types net of removals, campaign /
// channel / platform filters, tenant isolation, deleted users (also between two pages), and keyset
// paging across pages. Users, events and payments go through the real routes and the fact writer
// (test/support/audiences.ts); the formats, window, texts and limits are in audiences-export.test.ts,
// advertising ids in audiences-ad-ids.test.ts, ClickHouse failures in audiences-stream.test.ts.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Deps } from '../../../src/deps.ts';
import { exportAudience } from '../../../src/domain/audiences/export-audience.ts';
import { parseAudienceQuery } from '../../../src/http/parse/v1/audiences.ts';
import { eventAt, exportRequest, landFacts, paymentAt, seedUser } from '../../support/audiences.ts';
import { attributedInstall, useClientHarness } from '../../support/client.ts';
import { newProject } from '../../support/harness.ts';
import { at } from '../../support/users.ts';

const h = useClientHarness();

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();
const WINDOW = { event: 'purchase', from: '2025-04-01', to: '2025-04-30' };

function trailers(res: { trailers?: Record<string, string> }) {
  return { rows: res.trailers?.['x-audience-rows'], skipped: res.trailers?.['x-audience-skipped'] };
}

describe('200 segments', () => {
  it('when inactive_days is given, then users whose installs opened the app since are left out', async () => {
    const p = await newProject(h().deps);
    await seedUser(h(), p, { userId: 'gone', email: 'gone@example.com', lastOpen: ago(40) });
    await seedUser(h(), p, { userId: 'here', email: 'here@example.com', lastOpen: ago(1) });
    await eventAt(h(), p, 'gone', 'level_up', ago(45));
    await eventAt(h(), p, 'here', 'level_up', ago(45));
    await landFacts(h());
    const q = { event: 'level_up', from: ago(60).slice(0, 10), to: ago(0).slice(0, 10), format: 'plain' };

    const all = await exportRequest(h(), p, q);
    const inactive = await exportRequest(h(), p, { ...q, inactive_days: '30' });

    expect(all.body.split('\n').map((l) => l.split(',')[0])).toEqual(['user_id', 'gone', 'here', '']);
    expect(inactive.body).toBe(`user_id,email_sha256,phone_sha256,madid\ngone,${sha('gone@example.com')},,\n`);
  });

  it('when inactive_by is action, then users who did it again within the days are left out', async () => {
    const p = await newProject(h().deps);
    await seedUser(h(), p, { userId: 'again', email: 'again@example.com' });
    await seedUser(h(), p, { userId: 'lapsed', email: 'lapsed@example.com' });
    await eventAt(h(), p, 'again', 'order', ago(40));
    await eventAt(h(), p, 'again', 'order', ago(2));
    await eventAt(h(), p, 'lapsed', 'order', ago(40));
    await landFacts(h());

    const res = await exportRequest(h(), p, {
      event: 'order',
      from: ago(50).slice(0, 10),
      to: ago(30).slice(0, 10),
      inactive_days: '7',
      inactive_by: 'Action',
      format: 'plain',
    });

    expect(res.body.split('\n').map((l) => l.split(',')[0])).toEqual(['user_id', 'lapsed', '']);
  });

  it('when the last app open is exactly N × 24 h old, then the user counts as active; a millisecond older, inactive', async () => {
    const p = await newProject(h().deps);
    const now = Date.now();
    const opened = (ms: number) => new Date(now - 7 * DAY - ms).toISOString();
    await seedUser(h(), p, { userId: 'edge', email: 'edge@example.com', lastOpen: opened(0) });
    await seedUser(h(), p, { userId: 'past', email: 'past@example.com', lastOpen: opened(1) });
    for (const u of ['edge', 'past']) {
      await eventAt(h(), p, u, 'purchase', new Date(now - 8 * DAY).toISOString());
    }
    await landFacts(h());
    const q = { event: 'purchase', from: ago(9).slice(0, 10), to: ago(0).slice(0, 10), format: 'plain' };

    const res = await at(h(), now, () => exportRequest(h(), p, { ...q, inactive_days: '7' }));

    expect(res.body.split('\n').map((l) => l.split(',')[0])).toEqual(['user_id', 'past', '']);
  });

  it('when payment_type is given, then completed payments of that type count, net of removals', async () => {
    const p = await newProject(h().deps);
    for (const u of ['paid', 'other-type', 'failed', 'refunded']) {
      await seedUser(h(), p, { userId: u, email: `${u}@example.com` });
    }
    await paymentAt(h(), p, 'paid', '2025-04-10T10:00:00Z', { type: 'ONE_TIME' });
    await paymentAt(h(), p, 'other-type', '2025-04-10T10:00:00Z', { type: 'RECURRING' });
    await paymentAt(h(), p, 'failed', '2025-04-10T10:00:00Z', { type: 'ONE_TIME', status: 'PAYMENT_FAILED' });
    const refund = await paymentAt(h(), p, 'refunded', '2025-04-10T10:00:00Z', { type: 'ONE_TIME' });
    const removed = await h().app.inject({
      method: 'POST',
      url: '/api/v1/remove-payment',
      headers: p.headers,
      payload: { user_id: 'refunded', payment_id: refund },
    });
    expect(removed.statusCode).toBe(200);
    await landFacts(h());
    const ids = async (type: string) =>
      (await exportRequest(h(), p, { payment_type: type, from: '2025-04-01', to: '2025-04-30', format: 'plain' })).body
        .split('\n')
        .map((l) => l.split(',')[0]);

    expect(await ids('one_time')).toEqual(['user_id', 'paid', '']);
    expect(await ids('any')).toEqual(['user_id', 'other-type', 'paid', '']);
  });

  it('when campaign, channel or platform is given, then only facts with that attribution count', async () => {
    const p = await newProject(h().deps);
    const { campaign, iid } = await attributedInstall(h(), p);
    await seedUser(h(), p, { userId: 'from-ad', email: 'ad@example.com', iid });
    await seedUser(h(), p, { userId: 'organic', email: 'organic@example.com' });
    const now = new Date().toISOString();
    await eventAt(h(), p, 'from-ad', 'open_cart', now);
    await eventAt(h(), p, 'organic', 'open_cart', now);
    await landFacts(h());
    const day = now.slice(0, 10);
    const ids = async (q: Record<string, string>) =>
      (await exportRequest(h(), p, { event: 'open_cart', from: day, to: day, format: 'plain', ...q })).body
        .split('\n')
        .map((l) => l.split(',')[0]);

    expect(await ids({})).toEqual(['user_id', 'from-ad', 'organic', '']);
    expect(await ids({ campaign: campaign.displayId })).toEqual(['user_id', 'from-ad', '']);
    expect(await ids({ channel: 'meta' })).toEqual(['user_id', 'from-ad', '']);
    expect(await ids({ channel: 'Organic' })).toEqual(['user_id', 'organic', '']);
    expect(await ids({ channel: 'organic', campaign: campaign.displayId })).toEqual(['user_id', '']);
    expect(await ids({ platform: 'android' })).toEqual(['user_id', 'from-ad', 'organic', '']);
    expect(await ids({ platform: 'ios' })).toEqual(['user_id', '']);
  });

  it('when no user matches, then the answer is the header alone with zero counts', async () => {
    const p = await newProject(h().deps);
    const res = await exportRequest(h(), p, { ...WINDOW, format: 'google' });

    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('Email,Phone\n');
    expect(trailers(res)).toEqual({ rows: '0', skipped: '0' });
  });
});

describe('200 isolation and deletion', () => {
  it("when another project has the same user id and event, then neither export shows the other's user", async () => {
    const a = await newProject(h().deps);
    const b = await newProject(h().deps);
    await seedUser(h(), a, { userId: 'same', email: 'alice@example.com' });
    await seedUser(h(), b, { userId: 'same', email: 'mallory@example.com' });
    await seedUser(h(), b, { userId: 'only-b', email: 'bob@example.com' });
    await eventAt(h(), a, 'same', 'purchase', '2025-04-10T10:00:00Z');
    await eventAt(h(), b, 'same', 'purchase', '2025-04-10T10:00:00Z');
    await eventAt(h(), b, 'only-b', 'purchase', '2025-04-10T10:00:00Z');
    await landFacts(h());

    const ofA = await exportRequest(h(), a, { ...WINDOW, format: 'plain' });
    const ofB = await exportRequest(h(), b, { ...WINDOW, format: 'plain' });

    expect(ofA.body).toBe(`user_id,email_sha256,phone_sha256,madid\nsame,${sha('alice@example.com')},,\n`);
    expect(ofB.body).toBe(
      `user_id,email_sha256,phone_sha256,madid\nonly-b,${sha('bob@example.com')},,\nsame,${sha('mallory@example.com')},,\n`,
    );
  });

  it('when a user was deleted (or its deletion has not reached ClickHouse yet), then it never appears', async () => {
    const p = await newProject(h().deps);
    for (const u of ['deleted', 'half-deleted', 'kept']) {
      await seedUser(h(), p, { userId: u, email: `${u}@example.com` });
      await eventAt(h(), p, u, 'purchase', '2025-04-10T10:00:00Z');
    }
    await landFacts(h());
    const del = await h().app.inject({ method: 'DELETE', url: '/api/v1/users/deleted', headers: p.headers });
    expect(del.statusCode).toBe(200);
    // The Postgres step of a deletion whose ClickHouse step has not run: its facts are still there.
    await h().deps.sql`DELETE FROM app_users WHERE project_id = ${p.project.id} AND user_id = 'half-deleted'`;

    const res = await exportRequest(h(), p, { ...WINDOW, format: 'plain' });

    expect(res.body).toBe(`user_id,email_sha256,phone_sha256,madid\nkept,${sha('kept@example.com')},,\n`);
    expect(trailers(res)).toEqual({ rows: '1', skipped: '0' });
  });

  it('when a user is deleted after the first page was written, then a later page leaves it out', async () => {
    const p = await newProject(h().deps);
    for (const u of ['d1', 'd2', 'd3']) {
      await seedUser(h(), p, { userId: u, email: `${u}@example.com` });
      await eventAt(h(), p, u, 'purchase', '2025-04-10T10:00:00Z');
    }
    await landFacts(h());
    const input = parseAudienceQuery({ ...WINDOW, format: 'plain' });

    const out = await exportAudience(h().deps as Deps, p.project, input, { pageUsers: 1 });
    let csv = '';
    for await (const chunk of out.chunks) {
      if (csv === '') {
        const del = await h().app.inject({ method: 'DELETE', url: '/api/v1/users/d2', headers: p.headers });
        expect(del.statusCode).toBe(200);
      }
      csv += chunk;
    }

    expect(csv.split('\n').map((l) => l.split(',')[0])).toEqual(['user_id', 'd1', 'd3', '']);
    expect(out.tally).toEqual({ rows: 2, skipped: 0 });
  });
});

describe('paging', () => {
  it('when the segment spans pages, then every user appears once, in order, and skipped ones are counted', async () => {
    const p = await newProject(h().deps);
    const users = ['p1', 'p2', 'p3', 'p4', 'p5'];
    for (const u of users) {
      await seedUser(h(), p, { userId: u, email: u === 'p3' ? undefined : `${u}@example.com` });
      await eventAt(h(), p, u, 'purchase', '2025-04-10T10:00:00Z');
    }
    await landFacts(h());
    const input = parseAudienceQuery({ ...WINDOW, format: 'plain' });
    const progress: number[] = [];

    const out = await exportAudience(h().deps as Deps, p.project, input, {
      onPage: (x) => progress.push(x.users),
      pageUsers: 2,
    });
    let csv = '';
    for await (const chunk of out.chunks) {
      csv += chunk;
    }

    expect(csv.split('\n').map((l) => l.split(',')[0])).toEqual(['user_id', 'p1', 'p2', 'p4', 'p5', '']);
    expect(out.tally).toEqual({ rows: 4, skipped: 1 });
    expect(progress).toEqual([2, 4, 5]);
  });
});
