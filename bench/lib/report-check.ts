// Report requests for the reporting workloads, and the number check: the endpoint's campaign rows
// against the same campaigns' metrics computed from raw facts (report-raw.ts), formatted by the
// service's own formatters, so a difference is a difference in the numbers, never in the text.
import { DASH, formatCount, formatMoney } from '../../src/domain/reporting/format.ts';
import { localDay } from '../../src/lib/time.ts';
import type { RawPage, RawQuery } from './report-raw.ts';
import type { Rng } from './seed.ts';
import type { RunningService } from './service.ts';

export type ReportQuery = RawQuery & { view: 'user_acquisition' | 'retargeting' };

const SORTS: RawQuery['sortField'][] = ['clicks', 'installs', 'signups', 'revenue', 'spend'];
const PLATFORMS = ['', 'ANDROID', 'IOS'];
const LIMITS = [10, 25, 50];
const DAY_MS = 86_400_000;

/** The window of the last `days` project-local days, today included. */
export function lastDays(days: number, timezone: string, nowMs = Date.now()): { from: string; to: string } {
  return { from: localDay(nowMs - (days - 1) * DAY_MS, timezone), to: localDay(nowMs, timezone) };
}

/**
 * `n` distinct queries over one window (sort field and order, page, limit, platform, view vary), so
 * the service's 60 s report cache serves none of them.
 */
export function reportVariants(rng: Rng, window: { from: string; to: string }, campaigns: number, n: number) {
  const seen = new Set<string>();
  const out: ReportQuery[] = [];
  for (let tries = 0; out.length < n && tries < n * 50; tries++) {
    const limit = rng.pick(LIMITS);
    const q: ReportQuery = {
      ...window,
      platform: rng.pick(PLATFORMS),
      sortField: rng.pick(SORTS),
      descending: rng.int(2) === 0,
      page: 1 + rng.int(Math.max(1, Math.ceil(campaigns / limit))),
      limit,
      view: rng.int(3) === 0 ? 'retargeting' : 'user_acquisition',
    };
    const k = JSON.stringify(q);
    if (!seen.has(k)) {
      seen.add(k);
      out.push(q);
    }
  }
  return out;
}

export function reportUrl(svc: Pick<RunningService, 'url'>, q: ReportQuery): string {
  const p = new URLSearchParams({
    from: q.from,
    to: q.to,
    sort_field: q.sortField,
    sort_order: q.descending ? 'descending' : 'ascending',
    page: String(q.page),
    limit: String(q.limit),
    view: q.view,
  });
  if (q.platform) {
    p.set('platform', q.platform.toLowerCase());
  }
  return `${svc.url}/api/v1/reporting/campaigns?${p}`;
}

export type ReportRow = Record<string, unknown> & { id: number };
export type ReportBody = { data: { campaigns: ReportRow[]; display_currency: string } };

/** One report over HTTP; anything but a 200 is an error (a 429 would mean the limiter is on). */
export async function fetchReport(svc: RunningService, serverKey: string, q: ReportQuery): Promise<ReportBody> {
  const res = await fetch(reportUrl(svc, q), { headers: { 'service-key': serverKey } });
  const text = await res.text();
  if (res.status !== 200) {
    throw new Error(`GET reporting/campaigns answered ${res.status}: ${text.slice(0, 300)}`);
  }
  return JSON.parse(text) as ReportBody;
}

/** Differences between the endpoint's rows and the raw-facts page, as readable lines (empty: equal). */
export function compareWithRaw(body: ReportBody, raw: RawPage): string[] {
  const cur = body.data.display_currency;
  const money = (v: string) => formatMoney(v, cur);
  const diffs: string[] = [];
  const byId = new Map(raw.totals.map((t) => [t.campaignId, t]));
  for (const row of body.data.campaigns) {
    const t = byId.get(row.id);
    const same = (field: string, expected: string) => {
      const got = row[field];
      if (got !== DASH && got !== expected) {
        diffs.push(`campaign ${row.id} ${field}: endpoint ${JSON.stringify(got)}, raw facts ${expected}`);
      }
    };
    same('clicks', formatCount(t?.clicks ?? 0));
    same('installs', formatCount(t?.installs ?? 0));
    same('reinstalls', formatCount(t?.reinstalls ?? 0));
    same('reengagements', formatCount(t?.reengagements ?? 0));
    same('sign-ups', formatCount(t?.signups ?? 0));
    same('uninstalls', formatCount(t?.uninstalls ?? 0));
    same('suspicious_installs', formatCount(t?.suspicious ?? 0));
    same('click_through_attribution', formatCount(t?.clickThrough ?? 0));
    same('view_through_attribution', formatCount(t?.viewThrough ?? 0));
    same('revenue_event_count', formatCount(t?.revenueEvents ?? 0));
    same('revenue', money(t?.revenue ?? '0'));
    same('spend', money(t?.spend ?? '0'));
    diffs.push(...compareMaps(row, raw, money));
  }
  return diffs;
}

function compareMaps(row: ReportRow, raw: RawPage, money: (v: string) => string): string[] {
  const diffs: string[] = [];
  const events = (row.custom_events ?? {}) as Record<string, unknown>;
  for (const [name, v] of Object.entries(events)) {
    if (v === DASH) {
      continue;
    }
    const e = raw.events.find((x) => x.campaignId === row.id && x.name === name);
    const count = formatCount(e?.count ?? 0);
    const got = typeof v === 'string' ? { count: v } : (v as { count?: string; amount?: string });
    if (got.count !== count) {
      diffs.push(`campaign ${row.id} custom_events.${name}.count: endpoint ${got.count}, raw facts ${count}`);
    }
    if (got.amount !== undefined && got.amount !== money(e?.amount ?? '0')) {
      diffs.push(`campaign ${row.id} custom_events.${name}.amount: endpoint ${got.amount}, raw facts ${e?.amount}`);
    }
  }
  const payments = (row.payment_events ?? {}) as Record<string, { count: string; total: string }>;
  for (const [type, v] of Object.entries(payments)) {
    const p = raw.payments.find((x) => x.campaignId === row.id && x.type === type);
    if (v.count !== formatCount(p?.count ?? 0) || v.total !== money(p?.total ?? '0')) {
      diffs.push(
        `campaign ${row.id} payment_events.${type}: endpoint ${v.count} / ${v.total}, raw facts ${p?.count ?? 0} / ${p?.total ?? 0}`,
      );
    }
  }
  return diffs;
}
