// get_billing_usage (MCP): billable installs of a period (product-notes "Billing": only attributed
// installs are billable, organic ones are free; every account has a one-time pool of 25k free
// installs, then $0.01 per install on Growth). A project is the account here. Attributed installs
// are those of every campaign, deleted ones included (they were attributed when they happened), by
// project-local day. The pool is spent in time order: installs before the period use it first.
import type { Deps } from '../../deps.ts';
import { foreground } from '../../store/clickhouse/priority.ts';
import { type CounterRow, selectCampaignTotals } from '../../store/clickhouse/reporting.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { addDays, MIN_DAY, wholeMonths } from '../reporting/window.ts';
import { statsScope } from './stats-window.ts';

export const FREE_INSTALL_POOL = 25_000;
export const CENTS_PER_BILLABLE_INSTALL = 1;

export type BillingUsage = {
  from: string;
  to: string;
  attributedInstalls: number;
  usedBefore: number;
  freeInstalls: number;
  billableInstalls: number;
  poolLeft: number;
  amountCents: number;
  suspended: boolean;
  paymentLink: string | null;
};

const installsOf = (rows: CounterRow[]) => rows.reduce((n, r) => n + r.installs, 0);

async function attributedInstalls(deps: Pick<Deps, 'ch'>, project: Project, from: string, to: string) {
  if (from > to) {
    return 0;
  }
  const scope = statsScope(project, { from, to });
  return installsOf(await selectCampaignTotals(deps.ch, scope, wholeMonths(scope), ['installs']));
}

/** `from`..`to`: inclusive project-local days, from ≤ to (the tool's input checks them). */
export function getBillingUsage(
  deps: Pick<Deps, 'ch'>,
  project: Project,
  period: { from: string; to: string },
): Promise<BillingUsage> {
  return foreground(async () => {
    const [inPeriod, usedBefore] = await Promise.all([
      attributedInstalls(deps, project, period.from, period.to),
      period.from > MIN_DAY ? attributedInstalls(deps, project, MIN_DAY, addDays(period.from, -1)) : 0,
    ]);
    const poolAtStart = Math.max(0, FREE_INSTALL_POOL - usedBefore);
    const freeInstalls = Math.min(inPeriod, poolAtStart);
    const billableInstalls = inPeriod - freeInstalls;
    return {
      ...period,
      attributedInstalls: inPeriod,
      usedBefore,
      freeInstalls,
      billableInstalls,
      poolLeft: poolAtStart - freeInstalls,
      amountCents: billableInstalls * CENTS_PER_BILLABLE_INSTALL,
      suspended: project.billingSuspended,
      paymentLink: project.paymentLink,
    };
  });
}
