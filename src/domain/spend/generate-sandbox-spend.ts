// CLI `spend sandbox`: fills the last `days` project-local days (today included) of a campaign with
// sandbox_ads spend through the same upsert as every other source.
import type { Deps } from '../../deps.ts';
import { addDays } from '../../lib/days.ts';
import { localDay } from '../../lib/time.ts';
import { findSpendCampaigns } from '../../store/postgres/spend-rows.ts';
import { InputError } from '../projects/input-error.ts';
import { requireProject } from '../projects/require-project.ts';
import { type PullSpendResult, pullSpend } from './pull-spend.ts';
import { sandboxAdsSource } from './sandbox-ads.ts';

export type SandboxSpendInput = { displayId: string; days: string | undefined; seed: string | undefined };
export type SandboxSpendResult = PullSpendResult & { from: string; to: string; seed: number };

function integer(value: string | undefined, flag: string, fallback: number, min: number, max: number): number {
  if (value === undefined) {
    return fallback;
  }
  const n = /^-?\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new InputError(`--${flag} must be a whole number from ${min} to ${max} (got '${value}')`);
  }
  return n;
}

export async function generateSandboxSpend(
  deps: Pick<Deps, 'sql' | 'now'>,
  projectId: string,
  input: SandboxSpendInput,
): Promise<SandboxSpendResult> {
  const days = integer(input.days, 'days', 30, 1, 366);
  const seed = integer(input.seed, 'seed', 1, 0, 2 ** 32 - 1);
  const project = await requireProject(deps, projectId);
  const campaigns = await findSpendCampaigns(deps.sql, project.id, [input.displayId]);
  if (!campaigns.has(input.displayId)) {
    throw new InputError(`campaign '${input.displayId}' not found in project ${project.id}`);
  }
  const to = localDay(deps.now(), project.timezone);
  const from = addDays(to, 1 - days);
  const result = await pullSpend(deps, project, sandboxAdsSource({ displayId: input.displayId, seed }), { from, to });
  return { ...result, from, to, seed };
}
