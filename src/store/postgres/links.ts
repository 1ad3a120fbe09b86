// What a campaign link needs at click time: the project behind a Host, a display id's project when
// the link is opened on the service's own host, and one store listing per platform.
import type { Sql } from './pool.ts';
import { type Project, toProject } from './projects.ts';
import type { Platform, StoreListing } from './store-listings.ts';

// Postgres text refuses NUL (a 500 from `GET /%00`): such a value matches nothing.
const hasNul = (s: string): boolean => s.includes('\0');

/** The project owning a link domain (names are globally unique and stored lower-case). */
export async function findProjectByDomainName(sql: Sql, host: string): Promise<Project | undefined> {
  if (hasNul(host)) {
    return undefined;
  }
  const [row] = await sql<Parameters<typeof toProject>[0][]>`
    SELECT p.* FROM domains d JOIN projects p ON p.id = d.project_id WHERE d.name = ${host}`;
  return row ? toProject(row) : undefined;
}

/**
 * Projects holding this display id, deleted campaigns included (one row per project: the id is
 * unique per project); at most `limit` of them.
 */
export async function findProjectIdsByDisplayId(sql: Sql, displayId: string, limit = 2): Promise<string[]> {
  if (hasNul(displayId)) {
    return [];
  }
  const rows = await sql<{ project_id: string }[]>`
    SELECT project_id FROM campaigns WHERE display_id = ${displayId} LIMIT ${limit}`;
  return rows.map((r) => r.project_id);
}

type ListingRow = { id: string; project_id: string; name: string; platform: Platform; store_url: string };

/**
 * One listing per platform: the campaign's own when it has one, else the project's first (oldest).
 */
export async function findLinkListings(
  sql: Sql,
  projectId: string,
  campaignId: number,
): Promise<Partial<Record<Platform, StoreListing>>> {
  const rows = await sql<ListingRow[]>`
    SELECT DISTINCT ON (sl.platform) sl.id, sl.project_id, sl.name, sl.platform, sl.store_url
    FROM store_listings sl
    LEFT JOIN campaign_store_listings csl ON csl.store_listing_id = sl.id AND csl.campaign_id = ${campaignId}
    WHERE sl.project_id = ${projectId}
    ORDER BY sl.platform, (csl.campaign_id IS NULL), sl.created_at, sl.id`;
  const out: Partial<Record<Platform, StoreListing>> = {};
  for (const r of rows) {
    out[r.platform] = { id: r.id, projectId: r.project_id, name: r.name, platform: r.platform, storeUrl: r.store_url };
  }
  return out;
}
