// Full raw fact rows with chosen days and values, for reporting tests that need exact numbers on
// chosen days (the write paths stamp facts with the clock). Written with insertFactRows, the fact
// writer's own insert, so the materialized views see them exactly as they see the writer's.
import { randomUUID } from 'node:crypto';
import type { Deps } from '../../src/deps.ts';
import { insertFactRows } from '../../src/store/clickhouse/facts.ts';
import type { TestProject } from './harness.ts';

export type Attribution = {
  campaignId: number;
  displayId?: string;
  adSetId?: string;
  adSetName?: string;
  creativeId?: string;
  creativeName?: string;
  keywordId?: string;
  keywordName?: string;
  network?: string;
};

const cols = (a: Attribution) => ({
  campaign_id: a.campaignId,
  display_id: a.displayId ?? '',
  network: a.network ?? '',
  ad_set_id: a.adSetId ?? '',
  ad_set_name: a.adSetName ?? '',
  creative_id: a.creativeId ?? '',
  creative_name: a.creativeName ?? '',
  keyword_id: a.keywordId ?? '',
  keyword_name: a.keywordName ?? '',
});

const id = (prefix: string) => `${prefix}_${randomUUID()}`;
const base = (p: TestProject, day: string) => ({
  project_id: p.project.id,
  ts: `${day} 12:00:00.000`,
  project_tz: p.project.timezone,
  day,
});

export function click(p: TestProject, a: Attribution, day: string, platform = 'ANDROID') {
  return {
    click_id: id('ck'),
    ...base(p, day),
    ...cols(a),
    ip: '10.0.0.1',
    user_agent: 'test',
    platform,
    os: '',
    os_version: '',
    device_vendor: '',
    device_model: '',
    browser: '',
    in_app_browser: '',
    gclid: '',
    gbraid: '',
    wbraid: '',
    fbclid: '',
    ttclid: '',
    utm_source: '',
    utm_medium: '',
    utm_campaign: '',
    utm_term: '',
    utm_content: '',
    ad_id: '',
    referrer: '',
  };
}

export type InstallFact = { iid: string; day: string; platform: string; a: Attribution };

export function newInstall(a: Attribution, day: string, platform = 'ANDROID'): InstallFact {
  return { iid: randomUUID(), day, platform, a };
}

const installCols = (x: InstallFact) => ({
  ...cols(x.a),
  reengagement_campaign_id: 0,
  install_ts: `${x.day} 12:00:00.000`,
  install_day: x.day,
});

/** An install_events row of the install on `day` (the install itself on its install day). */
export function installEvent(p: TestProject, x: InstallFact, day = x.day) {
  return {
    event_id: id('ie'),
    ...base(p, day),
    install_instance_id: x.iid,
    kind: day === x.day ? 'install' : 'app_open',
    platform: x.platform,
    app_version: '1.0',
    package_version: '1.0',
    ip: '10.0.0.2',
    os: '',
    os_version: '',
    device_model: '',
    ...installCols(x),
  };
}

export function attribution(
  p: TestProject,
  x: InstallFact,
  opts: { kind?: string; suspicious?: boolean; touch?: 'click' | 'view'; day?: string } = {},
) {
  const day = opts.day ?? x.day;
  return {
    decision_id: id('ad'),
    ...base(p, day),
    install_instance_id: x.iid,
    kind: opts.kind ?? 'install',
    install_ts: `${day} 12:00:00.000`,
    platform: x.platform,
    attribution_type: x.a.campaignId === 0 ? 'ORGANIC' : 'INORGANIC',
    method: x.a.campaignId === 0 ? 'organic' : 'play_referrer',
    touch_type: x.a.campaignId === 0 ? '' : (opts.touch ?? 'click'),
    ...cols(x.a),
    click_id: '',
    click_ts: `${day} 11:00:00.000`,
    ctit_ms: 3_600_000,
    confidence: 1,
    suspicious: opts.suspicious ? 1 : 0,
    suspicious_reason: '',
    candidates: '[]',
    windows: '{}',
  };
}

export function signup(p: TestProject, x: InstallFact, userId: string, day = x.day) {
  return {
    event_id: id('su'),
    ...base(p, day),
    install_instance_id: x.iid,
    user_id: userId,
    platform: x.platform,
    is_first_time: 1,
    ...installCols(x),
  };
}

export function event(p: TestProject, x: InstallFact, userId: string, name: string, day: string, amount?: string) {
  return {
    event_id: id('ev'),
    ...base(p, day),
    install_instance_id: x.iid,
    user_id: userId,
    event_name: name,
    platform: x.platform,
    amount: amount ?? '0',
    has_amount: amount === undefined ? 0 : 1,
    event_data: '{}',
    ...installCols(x),
  };
}

export function payment(
  p: TestProject,
  x: InstallFact,
  userId: string,
  day: string,
  amount: string,
  opts: { type?: string; status?: string; sign?: 1 | -1; row?: string } = {},
) {
  return {
    event_id: id('pay'),
    ...base(p, day),
    install_instance_id: x.iid,
    user_id: userId,
    payment_id: '',
    payment_row: opts.row ?? id('row'),
    type: opts.type ?? 'DEFAULT',
    status: opts.status ?? 'PAYMENT_COMPLETED',
    amount,
    sign: opts.sign ?? 1,
    recorded_at: `${day} 12:00:00.000`,
    platform: x.platform,
    ...installCols(x),
  };
}

export function spend(p: TestProject, a: Attribution, day: string, amount: string, sign: 1 | -1 = 1) {
  return {
    event_id: id('sp'),
    project_id: p.project.id,
    day,
    ...cols(a),
    platform: '',
    amount,
    impressions: 0,
    clicks: 0,
    sign,
    recorded_at: `${day} 12:00:00.000`,
  };
}

export async function insertFacts(deps: Deps, table: string, rows: Record<string, unknown>[]): Promise<void> {
  if (rows.length > 0) {
    await insertFactRows(deps.ch, table, rows, id(table));
  }
}
