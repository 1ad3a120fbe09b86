// Store listings (Play custom listings, App Store custom product pages) of a project.
import type { Sql } from './pool.ts';

export type Platform = 'IOS' | 'ANDROID';
export type StoreListing = { id: string; projectId: string; name: string; platform: Platform; storeUrl: string };
type ListingRow = { id: string; project_id: string; name: string; platform: Platform; store_url: string };
const toListing = (r: ListingRow): StoreListing => ({
  id: r.id,
  projectId: r.project_id,
  name: r.name,
  platform: r.platform,
  storeUrl: r.store_url,
});

export async function insertStoreListing(sql: Sql, l: StoreListing): Promise<StoreListing> {
  const [row] = await sql<ListingRow[]>`
    INSERT INTO store_listings (id, project_id, name, platform, store_url)
    VALUES (${l.id}, ${l.projectId}, ${l.name}, ${l.platform}, ${l.storeUrl}) RETURNING *`;
  if (!row) {
    throw new Error('insert into store_listings returned no row');
  }
  return toListing(row);
}

export async function listStoreListings(sql: Sql, projectId: string): Promise<StoreListing[]> {
  const rows = await sql<
    ListingRow[]
  >`SELECT * FROM store_listings WHERE project_id = ${projectId} ORDER BY created_at, id`;
  return rows.map(toListing);
}

export async function findStoreListingsByIds(sql: Sql, projectId: string, ids: string[]): Promise<StoreListing[]> {
  // Postgres text cannot hold NUL: such an id matches no row (sending it would fail with 22021, a 500).
  const storable = ids.filter((id) => !id.includes('\0'));
  if (storable.length === 0) {
    return [];
  }
  // Same order as listingsOfCampaigns, so the create response lists them as the list does.
  const rows = await sql<ListingRow[]>`
    SELECT * FROM store_listings WHERE project_id = ${projectId} AND id = ANY(${storable}::text[])
    ORDER BY platform, id`;
  return rows.map(toListing);
}

/** Listings of each campaign, keyed by campaign id. */
export async function listingsOfCampaigns(sql: Sql, campaignIds: number[]): Promise<Map<number, StoreListing[]>> {
  const out = new Map<number, StoreListing[]>();
  if (campaignIds.length === 0) {
    return out;
  }
  const rows = await sql<(ListingRow & { campaign_id: number })[]>`
    SELECT csl.campaign_id, sl.* FROM campaign_store_listings csl
    JOIN store_listings sl ON sl.id = csl.store_listing_id
    WHERE csl.campaign_id = ANY(${campaignIds}::int[]) ORDER BY sl.platform, sl.id`;
  for (const r of rows) {
    const list = out.get(r.campaign_id) ?? [];
    list.push(toListing(r));
    out.set(r.campaign_id, list);
  }
  return out;
}

export async function insertCampaignStoreListings(
  sql: Sql,
  campaignId: number,
  listings: StoreListing[],
): Promise<void> {
  if (listings.length === 0) {
    return;
  }
  const rows = listings.map((l) => ({ campaign_id: campaignId, store_listing_id: l.id, platform: l.platform }));
  await sql`INSERT INTO campaign_store_listings ${sql(rows, 'campaign_id', 'store_listing_id', 'platform')}`;
}
