// Whether a campaign (project, display id) is live, cached: attribution-data serves an install's
// answer from its 24 h cache on every app launch, and a cached campaign answer is checked here first
// (a deleted campaign's installs answer organic), so a hit costs a statement at most once per
// campaign per LOOKUP_CACHE_TTL_MS in each process. Only live answers are kept; a deletion in this
// process drops its entry at once (softDeleteCampaign), other processes see it within the TTL.
// Display ids are never reused, so a deleted campaign's id never turns live again.
import { lookupCache } from './lookup-cache.ts';
import type { Sql } from './pool.ts';

export const liveCampaigns = lookupCache<boolean>((live) => live);

export const liveCampaignKey = (projectId: string, displayId: string): string => `${projectId}\u0000${displayId}`;

export function isCampaignLiveCached(sql: Sql, projectId: string, displayId: string): Promise<boolean> {
  // Postgres text cannot hold NUL (a 22021): such an id names no campaign.
  if (displayId.includes('\0')) {
    return Promise.resolve(false);
  }
  return liveCampaigns.get(liveCampaignKey(projectId, displayId), async () => {
    const rows = await sql`
      SELECT 1 FROM campaigns WHERE project_id = ${projectId} AND display_id = ${displayId} AND deleted_at IS NULL`;
    return rows.length > 0;
  });
}
