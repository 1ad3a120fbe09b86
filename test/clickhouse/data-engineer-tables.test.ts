// The ClickHouse tables as a data engineer reads them (README "For data engineers" and
// "Attribution"), driven through the real app (links, init, trigger, deeplinks, user deletion):
// README's recipes run as written; a deleted user leaves no row holding their advertising id, while
// a neighbour's click on the same network stays; the aggregates keep counting a deleted user (as
// README says) while the decisions recipe drops them; every decision lists the candidates of less
// trusted methods too; a re-engagement row names the link opened and its windows.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { addDays } from '../../src/lib/days.ts';
import { localDay } from '../../src/lib/time.ts';
import {
  attribute,
  campaignWithListings,
  clickLink,
  flushFacts,
  init,
  openCampaignLink,
  post,
  randomIp,
  useClientHarness,
} from '../support/client.ts';
import { signUp } from '../support/commerce.ts';
import { chJson, type Harness, newProject, type TestProject } from '../support/harness.ts';

const h = useClientHarness();

/** The ```sql blocks of README "For data engineers", in order. */
function readmeRecipes(): string[] {
  const readme = readFileSync(path.join(__dirname, '../../README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## For data engineers'), readme.indexOf('## Development'));
  return [...section.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1] as string);
}

/** A recipe as README gives it, with its placeholders filled: the project and a window. */
function recipe(i: number, projectId: string, from: string, to: string): string {
  const sql = readmeRecipes()[i];
  if (!sql) {
    throw new Error(`README has no recipe ${i}`);
  }
  return sql
    .replaceAll('<project id>', projectId)
    .replaceAll('2025-03-01', from)
    .replaceAll('2025-03-31', to)
    .trim()
    .replace(/;$/, '');
}

/** An Android install attributed by Play referrer to a click on `campaign`; the user signs up on it. */
async function attributedUser(harness: Harness, p: TestProject, userId: string) {
  const campaign = await campaignWithListings(harness.deps, p, { name: `C-${userId}` });
  const ip = randomIp();
  const { referrer } = await clickLink(harness, campaign, { ip, query: 'adset_id=as1&adset_name=Set%201' });
  await flushFacts(harness);
  const iid = randomUUID();
  const res = await init(harness, p.token, { install_instance_id: iid, device_data: { install_ref: referrer } }, ip);
  expect(res.statusCode).toBe(202);
  expect((await attribute(harness, p, iid))?.method).toBe('play_referrer');
  await signUp(harness, p, iid, userId);
  return { campaign, iid };
}

describe('ClickHouse tables as a data engineer reads them', () => {
  it('when README\'s "report numbers per campaign" recipe is run as written, then it runs and gives the campaign\'s window totals', async () => {
    // README "For data engineers": "The report's numbers for a window … per campaign:" + the SQL.
    const { deps, app } = h();
    const tz = 'Europe/Berlin';
    const p = await newProject(deps, { timezone: tz });
    const { campaign, iid } = await attributedUser(h(), p, 'recipe-user');
    const base = { token: p.token, platform: 'ANDROID', install_instance_id: iid };
    expect((await post(h(), 'capture-payment', { ...base, amount: 10, payment_id: 'r1' })).statusCode).toBe(201);
    const today = localDay(Date.now(), tz);
    const spend = await app.inject({
      method: 'PUT',
      url: '/api/v1/spend',
      headers: p.headers,
      payload: { rows: [{ day: today, campaign_display_id: campaign.displayId, amount: 40 }] },
    });
    expect(spend.statusCode).toBe(200);
    await flushFacts(h());

    // The day before too: the click is a minute old.
    const rows = await chJson<Record<string, unknown>>(deps.ch, recipe(0, p.project.id, addDays(today, -1), today));

    expect(rows).toEqual([
      { campaign_id: campaign.id, clicks: 1, installs: 1, signups: 1, revenue: 10, spend: 40, roas: 0.25 },
    ]);
  });

  it('when a user whose device clicked two campaigns with its GAID is deleted, then no ClickHouse row holds that GAID', async () => {
    // README CLI `users delete` / API `DELETE /api/v1/users/{user_id}`: "deletes one user's data
    // (GDPR) from Postgres, the ClickHouse raw tables and view targets".
    const { deps, app } = h();
    const p = await newProject(deps);
    const first = await campaignWithListings(deps, p, { name: 'First' });
    const second = await campaignWithListings(deps, p, { name: 'Second' });
    const gaid = randomUUID();
    await clickLink(h(), first, { ip: randomIp(), query: `gaid=${gaid}`, agoMs: 2 * 3600_000 });
    await clickLink(h(), second, { ip: randomIp(), query: `gaid=${gaid}`, agoMs: 3600_000 });
    await flushFacts(h());
    const iid = randomUUID();
    expect((await init(h(), p.token, { install_instance_id: iid, device_data: { gaid } }, randomIp())).statusCode).toBe(
      202,
    );
    const decision = await attribute(h(), p, iid);
    expect(decision?.method).toBe('ad_id');
    expect(decision?.candidates.map((c) => c.outcome).sort()).toEqual(['lost', 'won']);
    await signUp(h(), p, iid, 'gaid-user');
    await flushFacts(h());

    const res = await app.inject({ method: 'DELETE', url: '/api/v1/users/gaid-user', headers: p.headers });
    expect(res.statusCode).toBe(200);

    const left: Record<string, number> = {};
    for (const [table, where] of [
      ['clicks', 'ad_id = {g:String}'],
      ['clicks_by_key', "match_key = concat('a:', {g:String})"],
      ['clicks_by_ip', 'click_id IN (SELECT click_id FROM clicks WHERE ad_id = {g:String})'],
    ] as const) {
      const [r] = await chJson<{ n: number }>(
        deps.ch,
        `SELECT toUInt32(count()) AS n FROM ${table} WHERE project_id = {p:String} AND ${where}`,
        { p: p.project.id, g: gaid },
      );
      left[table] = Number(r?.n ?? 0);
    }
    expect(left).toEqual({ clicks: 0, clicks_by_key: 0, clicks_by_ip: 0 });
  });

  it("when a deleted user's decision listed a neighbour's click on the same network, then the neighbour's click stays", async () => {
    // A fingerprint candidate is only a click from the same IP: another device's (its model
    // differs here), not the deleted user's data.
    const { deps, app } = h();
    const p = await newProject(deps);
    const campaign = await campaignWithListings(deps, p, { name: 'Shared network' });
    const ip = randomIp();
    const gaid = randomUUID();
    const neighbour = await clickLink(h(), campaign, {
      ip,
      userAgent: 'Mozilla/5.0 (Linux; Android 12; Pixel 6) AppleWebKit/537.36 Chrome/120.0 Mobile Safari/537.36',
      agoMs: 2 * 3600_000,
    });
    const own = await clickLink(h(), campaign, { ip: randomIp(), query: `gaid=${gaid}`, agoMs: 3600_000 });
    await flushFacts(h());
    const iid = randomUUID();
    await init(h(), p.token, { install_instance_id: iid, device_data: { gaid } }, ip);
    const decision = await attribute(h(), p, iid);
    expect(decision?.method).toBe('ad_id');
    expect(decision?.candidates.map((c) => [c.method, c.click_id])).toEqual(
      expect.arrayContaining([
        ['ad_id', own.clickId],
        ['fingerprint', neighbour.clickId],
      ]),
    );
    await signUp(h(), p, iid, 'neighbour-of');
    await flushFacts(h());

    const res = await app.inject({ method: 'DELETE', url: '/api/v1/users/neighbour-of', headers: p.headers });
    expect(res.statusCode).toBe(200);

    const left = async (table: string) => {
      const rows = await chJson<{ click_id: string }>(
        deps.ch,
        `SELECT click_id FROM ${table} WHERE project_id = {p:String} AND click_id IN ({a:String}, {b:String})`,
        { p: p.project.id, a: own.clickId, b: neighbour.clickId },
      );
      return rows.map((r) => r.click_id);
    };
    expect(await left('clicks')).toEqual([neighbour.clickId]);
    expect(await left('clicks_by_ip')).toEqual([neighbour.clickId]);
  });

  it('when a Play referrer click wins over an ad-id click of another campaign, then the decision lists the losing click and why', async () => {
    // README "Attribution": "Every decision is a row of ClickHouse `attributions` with the method,
    // winning click, every candidate considered and why it won or lost".
    const { deps } = h();
    const p = await newProject(deps);
    const a = await campaignWithListings(deps, p, { name: 'A' });
    const b = await campaignWithListings(deps, p, { name: 'B' });
    const gaid = randomUUID();
    const ip = randomIp();
    const other = await clickLink(h(), b, { ip: randomIp(), query: `gaid=${gaid}`, agoMs: 3600_000 });
    const { referrer, clickId } = await clickLink(h(), a, { ip });
    await flushFacts(h());
    const iid = randomUUID();
    await init(h(), p.token, { install_instance_id: iid, device_data: { install_ref: referrer, gaid } }, ip);
    expect((await attribute(h(), p, iid))?.method).toBe('play_referrer');
    await flushFacts(h());

    const [row] = await chJson<{ click_id: string; candidates: string }>(
      deps.ch,
      `SELECT click_id, candidates FROM v_attributed_installs WHERE project_id = {p:String} AND install_instance_id = {i:String}`,
      { p: p.project.id, i: iid },
    );
    expect(row?.click_id).toBe(clickId);
    const candidates = JSON.parse(row?.candidates ?? '[]') as { click_id: string; outcome: string }[];
    expect(candidates.find((c) => c.click_id === other.clickId)).toMatchObject({ outcome: 'lost' });
  });

  it('when a user is deleted, then the report recipe keeps counting their install and the installs recipe no longer lists it', async () => {
    // README "For data engineers": the count per campaign equals `installs` above "until a user is
    // deleted: … the aggregates behind `v_campaign_daily` … keep counting them".
    const { deps, app } = h();
    const tz = 'UTC';
    const p = await newProject(deps, { timezone: tz });
    const { campaign } = await attributedUser(h(), p, 'kept-user');
    const { campaign: gone } = await attributedUser(h(), p, 'gone-user');
    await flushFacts(h());
    const res = await app.inject({ method: 'DELETE', url: '/api/v1/users/gone-user', headers: p.headers });
    expect(res.statusCode).toBe(200);
    const today = localDay(Date.now(), tz);

    const totals = await chJson<{ campaign_id: number; installs: number }>(
      deps.ch,
      `SELECT campaign_id, toUInt32(sum(installs)) AS installs FROM v_campaign_daily
       WHERE project_id = {p:String} AND day BETWEEN {d:Date} AND {d:Date} AND campaign_id != 0
       GROUP BY campaign_id ORDER BY campaign_id`,
      { p: p.project.id, d: today },
    );
    const decisions = await chJson<{ campaign_display_id: string }>(deps.ch, recipe(1, p.project.id, today, today));
    const perCampaign = (
      await deps.sql<{ id: number; display_id: string }[]>`
      SELECT id, display_id FROM campaigns WHERE project_id = ${p.project.id} ORDER BY id`
    ).map((c) => ({
      campaign_id: c.id,
      installs: decisions.filter((d) => d.campaign_display_id === c.display_id).length,
    }));

    expect(totals).toEqual([
      { campaign_id: campaign.id, installs: 1 },
      { campaign_id: gone.id, installs: 1 },
    ]);
    expect(perCampaign).toEqual([
      { campaign_id: campaign.id, installs: 1 },
      { campaign_id: gone.id, installs: 0 },
    ]);
  });

  it('when an attributed install opens another campaign link, then its re-engagement row names the link that won and the windows applied', async () => {
    // README "Attribution": "Every decision is a row of ClickHouse `attributions` with the method,
    // winning click, every candidate considered and why it won or lost, the windows applied";
    // v_attributed_installs: "`candidates` and `windows` (JSON)"; reattribution window 90 days.
    const { deps } = h();
    const p = await newProject(deps);
    const { iid } = await attributedUser(h(), p, 'reengaged-user');
    const promo = await campaignWithListings(deps, p, { name: 'Promo' });
    const res = await openCampaignLink(h(), p.token, iid, promo.displayId);
    expect(res.statusCode).toBe(200);
    await flushFacts(h());

    const [row] = await chJson<{ campaign_id: number; candidates: string; windows: string }>(
      deps.ch,
      `SELECT campaign_id, candidates, windows FROM v_attributed_installs
       WHERE project_id = {p:String} AND install_instance_id = {i:String} AND kind = 'reengagement'`,
      { p: p.project.id, i: iid },
    );
    expect(row?.campaign_id).toBe(promo.id);
    const candidates = JSON.parse(row?.candidates ?? '[]') as { campaign_id: number; outcome: string }[];
    expect(candidates).toContainEqual(expect.objectContaining({ campaign_id: promo.id, outcome: 'won' }));
    expect(JSON.parse(row?.windows ?? '{}')).toHaveProperty('reattribution_window_ms', 90 * 86_400_000);
  });
});
