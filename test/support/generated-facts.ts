// A deterministic set of full fact rows (every column of every raw table) for one project, for the
// materialized-view tests: several campaigns (and organic), platforms, ad sets, creatives, keywords
// and days across a month boundary; installs, reinstalls, re-engagements, suspicious and
// view-through decisions; app opens inside and outside the 30-day cohort window; events with and
// without amounts (names include '__proto__'); completed and failed payments, two removed (sign -1),
// a withdrawal (removed) and a refunded subscription among them (not revenue);
// spend with a restatement (-1 old, +1 new).
import type { ClickHouseClient } from '../../src/store/clickhouse/client.ts';
import { insertFactRows } from '../../src/store/clickhouse/facts.ts';

export type FactSet = Record<
  'clicks' | 'install_events' | 'attributions' | 'signups' | 'events' | 'payments' | 'spend',
  Record<string, unknown>[]
>;

function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CAMPAIGNS = [0, 11, 12, 13];
const PLATFORMS = ['ANDROID', 'IOS'];
const DAYS = ['2025-01-30', '2025-01-31', '2025-02-01', '2025-02-02'];
const AD_SETS = [
  { id: '', name: '' },
  { id: 'as1', name: 'Ad set one' },
  { id: 'as2', name: 'Ad set two' },
];
const CREATIVES = [
  { id: '', name: '' },
  { id: 'cr1', name: 'Creative one' },
];
const KEYWORDS = [
  { id: '', name: '' },
  { id: 'kw1', name: 'running shoes' },
];
export const EVENT_NAMES = ['purchase', 'level_up', '__proto__', 'constructor'];

/** Names per id, as the generator writes them (the views keep them). */
export const AD_SET_NAMES: Record<string, string> = Object.fromEntries(AD_SETS.map((a) => [a.id, a.name]));

const addDays = (day: string, n: number) => {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
};

export function generateFacts(projectId: string, seed: number): FactSet {
  const r = random(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  let seq = 0;
  const id = (prefix: string) => `${prefix}_${seed}_${++seq}`;
  const attribution = () => {
    const campaign = pick(CAMPAIGNS);
    const adSet = campaign === 0 ? AD_SETS[0] : pick(AD_SETS);
    const creative = campaign === 0 ? CREATIVES[0] : pick(CREATIVES);
    const keyword = campaign === 0 ? KEYWORDS[0] : pick(KEYWORDS);
    return {
      campaign_id: campaign,
      display_id: campaign === 0 ? '' : `c${campaign}`,
      network: campaign === 0 ? '' : 'META',
      ad_set_id: adSet?.id ?? '',
      ad_set_name: adSet?.name ?? '',
      creative_id: creative?.id ?? '',
      creative_name: creative?.name ?? '',
      keyword_id: keyword?.id ?? '',
      keyword_name: keyword?.name ?? '',
    };
  };
  const facts: FactSet = {
    clicks: [],
    install_events: [],
    attributions: [],
    signups: [],
    events: [],
    payments: [],
    spend: [],
  };

  for (let i = 0; i < 40; i++) {
    const day = pick(DAYS);
    const platform = pick(PLATFORMS);
    const a = attribution();
    facts.clicks.push({
      click_id: id('ck'),
      project_id: projectId,
      campaign_id: a.campaign_id,
      display_id: a.display_id,
      ts: `${day} 09:00:00.000`,
      project_tz: 'UTC',
      day,
      ip: `10.0.0.${i}`,
      user_agent: 'test-agent',
      platform,
      os: platform === 'IOS' ? 'iOS' : 'Android',
      os_version: '17',
      device_vendor: 'vendor',
      device_model: 'model',
      browser: 'Chrome',
      in_app_browser: '',
      network: a.network,
      ad_set_id: a.ad_set_id,
      ad_set_name: a.ad_set_name,
      creative_id: a.creative_id,
      creative_name: a.creative_name,
      keyword_id: a.keyword_id,
      keyword_name: a.keyword_name,
      gclid: '',
      gbraid: '',
      wbraid: '',
      fbclid: i % 3 === 0 ? `fb${i}` : '',
      ttclid: '',
      utm_source: 'meta',
      utm_medium: 'cpc',
      utm_campaign: a.display_id,
      utm_term: '',
      utm_content: '',
      ad_id: '',
      referrer: '',
      link_params: '',
    });
  }

  const installs: { iid: string; user: string; day: string; platform: string; a: ReturnType<typeof attribution> }[] =
    [];
  for (let i = 0; i < 30; i++) {
    const day = pick(DAYS);
    const platform = pick(PLATFORMS);
    installs.push({ iid: id('iid'), user: `user_${i % 20}`, day, platform, a: attribution() });
  }
  const install = (x: (typeof installs)[number]) => ({
    ...x.a,
    reengagement_campaign_id: 0,
    install_ts: `${x.day} 10:00:00.000`,
    install_day: x.day,
  });

  for (const x of installs) {
    // One install event, app opens on some following days, one outside the window, one before it.
    const offsets = [
      0,
      ...[1, 2, 3, 7].filter(() => r() < 0.5),
      ...(r() < 0.2 ? [31] : []),
      ...(r() < 0.1 ? [-1] : []),
    ];
    for (const n of offsets) {
      const day = addDays(x.day, n);
      facts.install_events.push({
        event_id: id('ie'),
        project_id: projectId,
        install_instance_id: x.iid,
        kind: n === 0 ? 'install' : 'app_open',
        ts: `${day} 11:00:00.000`,
        project_tz: 'UTC',
        day,
        platform: x.platform,
        app_version: '1.0',
        package_version: '3.0.0',
        ip: '10.1.1.1',
        os: 'Android',
        os_version: '14',
        device_model: 'model',
        ...install(x),
      });
    }
    const kind = r() < 0.75 ? 'install' : 'reinstall';
    const organic = x.a.campaign_id === 0;
    facts.attributions.push({
      decision_id: id('ad'),
      project_id: projectId,
      install_instance_id: x.iid,
      kind,
      ts: `${x.day} 10:00:05.000`,
      install_ts: `${x.day} 10:00:00.000`,
      project_tz: 'UTC',
      day: x.day,
      platform: x.platform,
      attribution_type: organic ? 'ORGANIC' : 'INORGANIC',
      method: organic ? 'organic' : pick(['play_referrer', 'link', 'fingerprint']),
      touch_type: organic ? '' : r() < 0.3 ? 'view' : 'click',
      ...x.a,
      click_id: organic ? '' : id('ck'),
      click_ts: `${x.day} 09:59:58.000`,
      ctit_ms: organic ? -1 : 2000,
      confidence: 1,
      suspicious: !organic && r() < 0.3 ? 1 : 0,
      suspicious_reason: '',
      candidates: '[]',
      windows: '{}',
    });
    if (r() < 0.3) {
      const day = addDays(x.day, 1);
      facts.attributions.push({
        ...(facts.attributions.at(-1) as Record<string, unknown>),
        decision_id: id('ad'),
        kind: 'reengagement',
        ts: `${day} 12:00:00.000`,
        install_ts: `${day} 12:00:00.000`,
        day,
        suspicious: 0,
      });
    }
    if (r() < 0.5) {
      facts.signups.push({
        event_id: id('su'),
        project_id: projectId,
        install_instance_id: x.iid,
        user_id: x.user,
        ts: `${x.day} 10:05:00.000`,
        project_tz: 'UTC',
        day: x.day,
        platform: x.platform,
        is_first_time: 1,
        ...install(x),
      });
    }
  }

  for (let i = 0; i < 45; i++) {
    const x = pick(installs);
    const day = addDays(x.day, pick([0, 0, 1, 3, 40]));
    const hasAmount = r() < 0.5;
    const amount = hasAmount ? `${Math.floor(r() * 100)}.${Math.floor(r() * 1000)}` : '0';
    facts.events.push({
      event_id: id('ev'),
      project_id: projectId,
      install_instance_id: x.iid,
      user_id: x.user,
      event_name: EVENT_NAMES[i % EVENT_NAMES.length],
      ts: `${day} 12:00:00.000`,
      project_tz: 'UTC',
      day,
      platform: x.platform,
      amount,
      has_amount: hasAmount ? 1 : 0,
      event_data: hasAmount ? `{"amount":${amount}}` : '{}',
      ...install(x),
    });
  }

  for (let i = 0; i < 16; i++) {
    const x = pick(installs);
    const day = addDays(x.day, pick([0, 2, 7]));
    const picked = pick(['FIRST_PAYMENT', 'RECURRING', 'DEFAULT']);
    facts.payments.push({
      event_id: id('pay'),
      project_id: projectId,
      install_instance_id: x.iid,
      user_id: x.user,
      payment_id: `p${seed}_${i}`,
      payment_row: String(i + 1),
      // Completed payments that are not revenue (README "Reporting"): the second is removed below.
      type: i === 1 ? 'FUNDS_WITHDRAWAL' : i === 6 ? 'SUBSCRIPTION_REFUNDED' : picked,
      status: i % 5 === 4 ? 'PAYMENT_FAILED' : 'PAYMENT_COMPLETED',
      amount: `${10 + i}.25`,
      sign: 1,
      ts: `${day} 13:00:00.000`,
      recorded_at: `${day} 13:00:00.000`,
      project_tz: 'UTC',
      day,
      platform: x.platform,
      ...install(x),
    });
  }
  // Removals of two completed payments: the same row with sign -1, recorded later.
  for (const p of facts.payments.filter((p) => p.status === 'PAYMENT_COMPLETED').slice(0, 2)) {
    facts.payments.push({ ...p, event_id: id('pay'), sign: -1, recorded_at: '2025-03-01 00:00:00.000' });
  }

  for (let i = 0; i < 12; i++) {
    const a = attribution();
    const day = pick(DAYS);
    const row = {
      event_id: id('sp'),
      project_id: projectId,
      day,
      campaign_id: a.campaign_id || 11,
      display_id: a.display_id || 'c11',
      ad_set_id: a.ad_set_id,
      ad_set_name: a.ad_set_name,
      creative_id: a.creative_id,
      creative_name: a.creative_name,
      keyword_id: a.keyword_id,
      keyword_name: a.keyword_name,
      network: 'META',
      platform: '',
      amount: `${20 + i}.5`,
      impressions: 1000 + i,
      clicks: 10 + i,
      sign: 1,
      recorded_at: `${day} 23:00:00.000`,
    };
    facts.spend.push(row);
    if (i % 4 === 0) {
      // A restatement: the old values withdrawn, the new ones added.
      facts.spend.push({ ...row, event_id: id('sp'), sign: -1 });
      facts.spend.push({ ...row, event_id: id('sp'), amount: `${i}.75`, impressions: 500, clicks: 5 });
    }
  }
  return facts;
}

/** Writes generateFacts(projectId, seed) to the raw tables, one insert per table (the views fill). */
export async function writeGeneratedFacts(
  ch: ClickHouseClient,
  projectId: string,
  seed: number,
  tokenPrefix: string,
): Promise<void> {
  for (const [table, list] of Object.entries(generateFacts(projectId, seed))) {
    // A test may write at an older migration (long-clickhouse-migration: before 0019), whose tables
    // lack later columns (clicks.link_params, 0027); the writer refuses unknown fields.
    const rs = await ch.query({
      query: 'SELECT name FROM system.columns WHERE database = currentDatabase() AND table = {t:String}',
      query_params: { t: table },
      format: 'JSONEachRow',
    });
    const has = new Set((await rs.json<{ name: string }>()).map((c) => c.name));
    const rows = list.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => has.has(k))));
    await insertFactRows(ch, table, rows, `${tokenPrefix}:${projectId}:${table}`);
  }
}
