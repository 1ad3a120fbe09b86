// The facts a scenario should have produced, derived in plain TypeScript from the scenario alone
// (never read back from a store): each install's attribution as the engine's rules decide it (the
// click it came from; reinstall when the device installed before; suspicious under 10 s from click
// to install), and every click, decision, re-engagement, sign-up, event, payment, install event and
// spend row with its campaign key, platform and project-local day. A completed payment is revenue
// unless its type moves no money in (README "Reporting": withdrawals, refunds, cancellations and
// billing issues count only in payment_events).
import { localDay } from '../../src/lib/time.ts';
import type { Keys, Platform, Scenario } from './report-scenario.ts';

export type Key = { campaign: number; adSet: string; creative: string; keyword: string };
export type Names = { adSet: string; creative: string; keyword: string };
type Base = Key & { names: Names; platform: string; day: string };

export type OFact =
  | (Base & { t: 'click' })
  | (Base & { t: 'decision'; kind: 'install' | 'reinstall' | 'reengagement'; suspicious: boolean })
  | (Base & { t: 'signup' })
  | (Base & { t: 'event'; name: string; amount: string | null; user: string; install: number })
  | (Base & {
      t: 'payment';
      type: string;
      amount: string;
      sign: 1 | -1;
      user: string;
      install: number;
      /** Counts in revenue, revenue_event_count, ROAS and daywise revenue (payment_events counts every type). */
      revenue: boolean;
    })
  | (Base & { t: 'open'; install: number })
  | (Base & { t: 'spend'; amount: string });

export type OInstall = Key & {
  names: Names;
  platform: Platform;
  installDay: string;
  kind: 'install' | 'reinstall';
  /** Project-local days the install was active (init: install or app open). */
  activeDays: Set<string>;
};

/** Completed payment types that are not revenue (not money in). */
export const NOT_REVENUE_TYPES = new Set([
  'FUNDS_WITHDRAWAL',
  'SUBSCRIPTION_CANCELLED',
  'SUBSCRIPTION_REFUNDED',
  'SUBSCRIPTION_BILLING_ISSUE',
]);

const ORGANIC = -1;
const keyOf = (campaign: number, k: Keys) => ({
  campaign,
  adSet: k.adSet?.id ?? '',
  creative: k.creative?.id ?? '',
  keyword: k.keyword?.id ?? '',
  names: { adSet: k.adSet?.name ?? '', creative: k.creative?.name ?? '', keyword: k.keyword?.name ?? '' },
});
const NONE: Keys = { adSet: null, creative: null, keyword: null };

export function deriveFacts(s: Scenario): { facts: OFact[]; installs: OInstall[] } {
  const day = (ts: number) => localDay(ts, s.timezone);
  const facts: OFact[] = [];
  for (const c of s.clicks) {
    facts.push({ t: 'click', ...keyOf(c.campaign, c), platform: c.platform, day: day(c.ts) });
  }
  const installs: OInstall[] = s.installs.map((x, i) => {
    const click = x.click === null ? undefined : s.clicks[x.click];
    const seen = s.installs.some((y, j) => j !== i && y.deviceId === x.deviceId && y.ts <= x.ts);
    const kind = seen ? 'reinstall' : 'install';
    const key = click ? keyOf(click.campaign, click) : keyOf(ORGANIC, NONE);
    const o: OInstall = { ...key, platform: x.platform, installDay: day(x.ts), kind, activeDays: new Set([day(x.ts)]) };
    const suspicious = click !== undefined && x.ts - click.ts < 10_000;
    facts.push({ t: 'decision', ...key, platform: x.platform, day: day(x.ts), kind, suspicious });
    facts.push({ t: 'open', ...key, platform: x.platform, day: day(x.ts), install: i });
    return o;
  });
  const of = (i: number) => installs[i] as OInstall;
  const base = (i: number, ts: number) => {
    const x = of(i);
    return {
      campaign: x.campaign,
      adSet: x.adSet,
      creative: x.creative,
      keyword: x.keyword,
      names: x.names,
      platform: x.platform,
      day: day(ts),
    };
  };
  for (const o of s.opens) {
    of(o.install).activeDays.add(day(o.ts));
    facts.push({ t: 'open', ...base(o.install, o.ts), install: o.install });
  }
  for (const e of s.reengagements) {
    facts.push({
      t: 'decision',
      ...keyOf(e.campaign, NONE),
      platform: of(e.install).platform,
      day: day(e.ts),
      kind: 'reengagement',
      suspicious: false,
    });
  }
  for (const u of s.signups) {
    facts.push({ t: 'signup', ...base(u.install, u.ts) });
  }
  for (const e of s.events) {
    facts.push({
      t: 'event',
      ...base(e.install, e.ts),
      name: e.name,
      amount: e.amount,
      user: e.userId,
      install: e.install,
    });
  }
  for (const p of s.payments.filter((x) => x.status === 'PAYMENT_COMPLETED')) {
    const row = {
      ...base(p.install, p.ts),
      type: p.type,
      amount: p.amount,
      user: p.userId,
      install: p.install,
      revenue: !NOT_REVENUE_TYPES.has(p.type),
    };
    facts.push({ t: 'payment', ...row, sign: 1 });
    if (p.removedTs !== null) {
      facts.push({ t: 'payment', ...row, sign: -1 });
    }
  }
  for (const sp of s.spends) {
    facts.push({ t: 'spend', ...keyOf(sp.campaign, sp), platform: '', day: sp.day, amount: sp.amounts.at(-1) ?? '0' });
  }
  return { facts, installs };
}
