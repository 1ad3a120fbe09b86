// MCP tool answers → JSON (snake_case, as the HTTP API answers). Money is decimal text in the
// project's display currency; billing amounts are in USD (product-notes "Billing").

import type { EventCounts } from '../../../domain/mcp/count-events.ts';
import type { BillingUsage } from '../../../domain/mcp/get-billing-usage.ts';
import { CENTS_PER_BILLABLE_INSTALL, FREE_INSTALL_POOL } from '../../../domain/mcp/get-billing-usage.ts';
import type { ProjectInfo } from '../../../domain/mcp/get-project-info.ts';
import type { ProjectStats, StatsTotals } from '../../../domain/mcp/get-project-stats.ts';
import type { Project } from '../../../store/postgres/projects.ts';

export function presentProjectInfo(i: ProjectInfo) {
  const p = i.project;
  return {
    id: p.id,
    name: p.name,
    timezone: p.timezone,
    currency: p.displayCurrency,
    website: p.website,
    created_at: p.createdAt.toISOString(),
    platforms: [...new Set(i.listings.map((l) => l.platform))].sort(),
    store_listings: i.listings.map((l) => ({
      store_listing_id: l.id,
      name: l.name,
      platform: l.platform,
      store_url: l.storeUrl,
    })),
    domains: i.domains.map((d) => ({ name: d.name, is_primary: d.isPrimary })),
    billing_suspended: p.billingSuspended,
  };
}

const totals = (t: StatsTotals) => ({
  clicks: t.clicks,
  installs: t.installs,
  reinstalls: t.reinstalls,
  reengagements: t.reengagements,
  signups: t.signups,
  uninstalls: t.uninstalls,
  suspicious_installs: t.suspiciousInstalls,
  revenue_events: t.revenueEvents,
  revenue: t.revenue,
  spend: t.spend,
});

const windowOf = (p: Project, w: { from: string | null; to: string | null }) => ({
  from: w.from,
  to: w.to,
  timezone: p.timezone,
});

export function presentProjectStats(p: Project, s: ProjectStats) {
  return {
    window: windowOf(p, s.window),
    currency: p.displayCurrency,
    live_campaigns: s.campaigns,
    attributed: totals(s.attributed),
    organic: totals(s.organic),
    total: totals(s.total),
  };
}

export function presentEventCounts(p: Project, e: EventCounts) {
  return {
    window: windowOf(p, e.window),
    currency: p.displayCurrency,
    events: e.events.map((x) => ({
      name: x.name,
      count: x.attributedCount + x.organicCount,
      attributed_count: x.attributedCount,
      organic_count: x.organicCount,
      attributed_amount: x.attributedAmount,
      organic_amount: x.organicAmount,
    })),
    names_cut: e.namesCut,
  };
}

const dollars = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

export function presentBillingUsage(p: Project, b: BillingUsage, month: string | null) {
  return {
    period: { month, from: b.from, to: b.to, timezone: p.timezone },
    attributed_installs: b.attributedInstalls,
    free_installs: b.freeInstalls,
    billable_installs: b.billableInstalls,
    free_pool: {
      size: FREE_INSTALL_POOL,
      used_before_period: Math.min(b.usedBefore, FREE_INSTALL_POOL),
      remaining_after_period: b.poolLeft,
    },
    price_per_install_usd: dollars(CENTS_PER_BILLABLE_INSTALL),
    amount_usd: dollars(b.amountCents),
    billing_suspended: b.suspended,
    payment_link: b.paymentLink,
    rule: `Only attributed installs are billable; organic installs are free. The first ${FREE_INSTALL_POOL.toLocaleString('en-US')} attributed installs are free (a one-time pool), then $${dollars(CENTS_PER_BILLABLE_INSTALL)} per install.`,
  };
}
