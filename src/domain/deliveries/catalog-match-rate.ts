// The catalog match rate: the share of distinct product ids sent to Meta that the uploaded
// catalog holds (the spec recommends 90 percent or more). null when nothing was forwarded yet.
import type { PgDeps } from '../../deps.ts';
import { countCatalogMatches } from '../../store/postgres/connections.ts';
import { requireProject } from '../projects/require-project.ts';

export const RECOMMENDED_MATCH_RATE = 0.9;

export async function catalogMatchRate(
  deps: Pick<PgDeps, 'sql'>,
  projectId: string,
): Promise<{ forwarded: number; matched: number; rate: number | null; meetsRecommendation: boolean }> {
  await requireProject(deps, projectId);
  const { forwarded, matched } = await countCatalogMatches(deps.sql, projectId);
  const rate = forwarded === 0 ? null : matched / forwarded;
  return { forwarded, matched, rate, meetsRecommendation: rate !== null && rate >= RECOMMENDED_MATCH_RATE };
}
