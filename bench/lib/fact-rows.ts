// Fact rows for the `fact-writer` workload, made from the seed: one project (Europe/Berlin), a
// few campaigns, attributed and organic installs with their users, and N facts shaped like the
// service's own rows (domain/events/capture-event.ts, payment-fact.ts, links/record-click.ts):
// events 55 %, clicks 30 %, payments 15 %, over one week in time order. Events and payments name
// their install, so the writer enriches them from Postgres as it does in production. `enriched`
// is the same row as it lands in ClickHouse (attribution columns added), for the raw-insert ceiling.
import { classifyUserAgent } from '../../src/domain/links/classify-user-agent.ts';
import { newTimeId } from '../../src/lib/ids.ts';
import { formatChTime, localDay } from '../../src/lib/time.ts';
import type { Sql } from '../../src/store/postgres/pool.ts';
import { mobileAgent, type Rng } from './seed.ts';

export const FACT_MIX = { events: 0.55, clicks: 0.3, payments: 0.15 } as const;
export type BenchFactTable = keyof typeof FACT_MIX;
export type BenchFact = {
  table: BenchFactTable;
  factId: string;
  row: Record<string, unknown>;
  enrichInstall?: string;
  /** The columns the writer adds (events and payments). */
  enrichment?: Record<string, unknown>;
};

const TZ = 'Europe/Berlin';
const WEEK_START = Date.parse('2026-11-02T00:00:00Z');
const WEEK_MS = 7 * 86_400_000;
const ALPHABET = 'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const EVENTS = ['session_start', 'session_start', 'screen_view', 'level_complete', 'add_to_cart', 'purchase'];
const PAYMENT_TYPES = ['FIRST_PAYMENT', 'ONE_TIME', 'RECURRING'];
const CAMPAIGNS = [
  {
    displayId: 'spring-meta',
    network: 'META',
    adSet: ['as_1201', 'Lookalike DE 1%'],
    creative: ['cr_77', 'Video 15s'],
  },
  { displayId: 'search-goog', network: 'GOOGLE', adSet: ['as_88', 'Brand terms'], creative: ['', ''] },
  { displayId: 'tt-launch', network: 'TIKTOK', adSet: ['as_5', 'Broad 18-34'], creative: ['cr_9', 'UGC hook'] },
  { displayId: 'newsletter', network: '', adSet: ['', ''], creative: ['', ''] },
] as const;

type Install = { id: string; userId: string; platform: string; campaign: number; createdMs: number };
export type FactState = { projectId: string; installs: Install[]; campaignIds: number[] };

const code = (rng: Rng, n: number) => Array.from({ length: n }, () => ALPHABET[rng.int(ALPHABET.length)]).join('');

/** The project, campaigns and decided installs (80 % attributed, 20 % organic), in Postgres. */
async function seedState(sql: Sql, rng: Rng, users: number): Promise<{ projectId: string; installs: Install[] }> {
  const [p] = await sql<{ id: string }[]>`
    INSERT INTO projects (name, timezone, token) VALUES ('fact-writer bench', ${TZ}, ${`pt_${code(rng, 32)}`})
    RETURNING id::text`;
  const projectId = p?.id ?? '';
  const ids: number[] = [];
  for (const c of CAMPAIGNS) {
    const [r] = await sql<{ id: number }[]>`
      INSERT INTO campaigns (project_id, display_id, name, network)
      VALUES (${projectId}, ${c.displayId}, ${c.displayId}, ${c.network || null}) RETURNING id`;
    ids.push(r?.id ?? 0);
  }
  const installs: Install[] = Array.from({ length: users }, (_, i) => ({
    id: rng.uuid(),
    userId: `user_${i}_${rng.hex(8)}`,
    platform: rng.int(4) === 0 ? 'IOS' : 'ANDROID',
    campaign: rng.int(5) === 0 ? -1 : rng.int(CAMPAIGNS.length),
    createdMs: WEEK_START - rng.int(30 * 86_400_000),
  }));
  const rows = installs.map((u) => {
    const c = u.campaign >= 0 ? CAMPAIGNS[u.campaign] : undefined;
    return {
      project_id: projectId,
      install_instance_id: u.id,
      platform: u.platform,
      campaign_id: c ? (ids[u.campaign] ?? null) : null,
      user_id: u.userId,
      created_at: new Date(u.createdMs),
      attribution_status: 'decided',
      network: c?.network ?? null,
      ad_set_id: c?.adSet[0] ?? null,
      ad_set_name: c?.adSet[1] ?? null,
      creative_id: c?.creative[0] ?? null,
      creative_name: c?.creative[1] ?? null,
    };
  });
  for (let i = 0; i < rows.length; i += 1000) {
    await sql`INSERT INTO installs ${sql(rows.slice(i, i + 1000))}`;
  }
  for (const u of installs) {
    u.campaign = u.campaign >= 0 ? (ids[u.campaign] ?? 0) : 0;
  }
  return { projectId, installs };
}

/** The attribution columns enrich-facts adds for a decided install (no re-engagement). */
function enrichmentOf(u: Install, campaignIds: number[]): Record<string, unknown> {
  const c = CAMPAIGNS[campaignIds.indexOf(u.campaign)];
  return {
    campaign_id: u.campaign,
    display_id: c?.displayId ?? '',
    network: c?.network ?? '',
    ad_set_id: c?.adSet[0] ?? '',
    ad_set_name: c?.adSet[1] ?? '',
    creative_id: c?.creative[0] ?? '',
    creative_name: c?.creative[1] ?? '',
    keyword_id: '',
    keyword_name: '',
    reengagement_campaign_id: 0,
    install_ts: formatChTime(u.createdMs),
    install_day: localDay(u.createdMs, TZ),
  };
}

function eventRow(rng: Rng, projectId: string, u: Install, id: string, ms: number) {
  const name = rng.pick(EVENTS);
  const paid = name === 'purchase';
  const data = paid
    ? { sku: `sku_${rng.hex(6)}`, amount: 4.99, currency: 'EUR' }
    : name === 'level_complete'
      ? { level: 1 + rng.int(60), duration_s: 20 + rng.int(400) }
      : { screen: rng.pick(['Home', 'Shop', 'ProductDetails', 'Settings']) };
  return {
    event_id: id,
    project_id: projectId,
    install_instance_id: u.id,
    user_id: u.userId,
    event_name: name,
    ts: formatChTime(ms),
    project_tz: TZ,
    day: localDay(ms, TZ),
    platform: u.platform,
    amount: paid ? '4.99' : '0',
    has_amount: paid ? 1 : 0,
    event_data: JSON.stringify(data),
  };
}

function paymentRow(rng: Rng, projectId: string, u: Install, id: string, ms: number, seq: number) {
  return {
    event_id: id,
    project_id: projectId,
    install_instance_id: u.id,
    user_id: u.userId,
    payment_id: `GPA.33${rng.int(100)}-${rng.int(10_000)}-${rng.int(10_000)}-${rng.int(100_000)}`,
    payment_row: String(seq),
    type: rng.pick(PAYMENT_TYPES),
    status: rng.int(10) === 0 ? 'PAYMENT_FAILED' : 'PAYMENT_COMPLETED',
    amount: rng.pick(['0.99', '4.99', '9.99', '19.99']),
    sign: 1,
    ts: formatChTime(ms),
    recorded_at: formatChTime(ms),
    project_tz: TZ,
    day: localDay(ms, TZ),
    platform: u.platform,
  };
}

const agents = new Map<string, ReturnType<typeof classifyUserAgent>>();

function clickRow(rng: Rng, projectId: string, campaignIds: number[], id: string, ms: number) {
  const k = rng.int(CAMPAIGNS.length);
  const c = CAMPAIGNS[k] ?? CAMPAIGNS[0];
  const ua = mobileAgent(rng);
  const a = agents.get(ua) ?? classifyUserAgent(ua);
  agents.set(ua, a);
  const utm = c.network === '' ? ['newsletter', 'email', 'november'] : [c.network.toLowerCase(), 'cpc', c.displayId];
  const none = { gclid: '', gbraid: '', wbraid: '', fbclid: '', ttclid: '' };
  return {
    click_id: id,
    project_id: projectId,
    campaign_id: campaignIds[k] ?? 0,
    display_id: c.displayId,
    ts: formatChTime(ms),
    project_tz: TZ,
    day: localDay(ms, TZ),
    ip: `${10 + rng.int(200)}.${rng.int(256)}.${rng.int(256)}.${rng.int(256)}`,
    user_agent: ua,
    platform: a.platform,
    os: a.os,
    os_version: a.osVersion,
    device_vendor: a.deviceVendor,
    device_model: a.deviceModel,
    browser: a.browser,
    in_app_browser: a.inAppBrowser,
    network: c.network,
    ad_set_id: c.adSet[0],
    ad_set_name: c.adSet[1],
    creative_id: c.creative[0],
    creative_name: c.creative[1],
    keyword_id: '',
    keyword_name: '',
    ...none,
    ...(c.network === 'META' ? { fbclid: `IwAR${code(rng, 57)}` } : {}),
    utm_source: utm[0],
    utm_medium: utm[1],
    utm_campaign: utm[2],
    utm_term: '',
    utm_content: '',
    ad_id: '',
    referrer: '',
  };
}

/** Seeds Postgres with the project, campaigns and installs that `n` facts refer to. */
export async function seedFactState(sql: Sql, rng: Rng, n: number): Promise<FactState> {
  const { projectId, installs } = await seedState(sql, rng, Math.max(200, Math.round(n / 50)));
  const rows = await sql<{ id: number }[]>`SELECT id FROM campaigns WHERE project_id = ${projectId} ORDER BY id`;
  return { projectId, installs, campaignIds: rows.map((r) => r.id) };
}

/** Fact i of n (time order). The same rng state gives the same fact, so a run can make them twice. */
export function makeFact(s: FactState, rng: Rng, i: number, n: number): BenchFact {
  const ms = WEEK_START + Math.floor((i * WEEK_MS) / n) + rng.int(1000);
  const x = rng.next();
  const u = s.installs[rng.int(s.installs.length)] as Install;
  // Ids as the service makes them (lib/ids.ts newTimeId: the time, then random characters).
  if (x < FACT_MIX.clicks) {
    const id = newTimeId(ms, code(rng, 12));
    return { table: 'clicks', factId: id, row: clickRow(rng, s.projectId, s.campaignIds, id, ms) };
  }
  const isEvent = x < FACT_MIX.clicks + FACT_MIX.events;
  const id = `${isEvent ? 'ev' : 'pay'}_${newTimeId(ms, code(rng, 12))}`;
  const row = isEvent ? eventRow(rng, s.projectId, u, id, ms) : paymentRow(rng, s.projectId, u, id, ms, i + 1);
  const table = isEvent ? 'events' : 'payments';
  return { table, factId: id, row, enrichInstall: u.id, enrichment: enrichmentOf(u, s.campaignIds) };
}
