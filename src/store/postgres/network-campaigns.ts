// A campaign's id on its ad network (campaigns.network_campaign_id, and Meta's meta_campaign_id),
// which network resolvers use to map a network's claim to our campaign. Scoped by project.
import type { Sql } from './pool.ts';

export type NetworkCampaign = {
  id: number;
  displayId: string;
  network: string | null;
  networkCampaignId: string | null;
  metaCampaignId: string | null;
};

type Row = {
  id: number;
  display_id: string;
  network: string | null;
  network_campaign_id: string | null;
  meta_campaign_id: string | null;
};

const toNetworkCampaign = (r: Row): NetworkCampaign => ({
  id: r.id,
  displayId: r.display_id,
  network: r.network,
  networkCampaignId: r.network_campaign_id,
  metaCampaignId: r.meta_campaign_id,
});

// Postgres text cannot hold NUL; such an id names no campaign (and would fail with 22021).
const hasNul = (s: string): boolean => s.includes('\0');

/**
 * The live campaign of `network` whose network campaign id is `networkCampaignId`; for META the
 * campaign's meta_campaign_id counts too. The oldest wins if an operator mapped two. With `liveAt`,
 * a campaign deleted after that time counts too (it was live then).
 */
export async function findCampaignByNetworkCampaignId(
  sql: Sql,
  projectId: string,
  network: string,
  networkCampaignId: string,
  liveAt?: Date,
): Promise<NetworkCampaign | undefined> {
  if (networkCampaignId === '' || hasNul(networkCampaignId)) {
    return undefined;
  }
  const live = liveAt ? sql`(deleted_at IS NULL OR deleted_at > ${liveAt})` : sql`deleted_at IS NULL`;
  const [row] = await sql<Row[]>`
    SELECT id, display_id, network, network_campaign_id, meta_campaign_id FROM campaigns
    WHERE project_id = ${projectId} AND network = ${network} AND ${live}
      AND (network_campaign_id = ${networkCampaignId}
        OR (${network} = 'META' AND meta_campaign_id = ${networkCampaignId}))
    ORDER BY id LIMIT 1`;
  return row ? toNetworkCampaign(row) : undefined;
}

/** Sets a live campaign's network campaign id; undefined when no such campaign. */
export async function updateNetworkCampaignId(
  sql: Sql,
  projectId: string,
  displayId: string,
  networkCampaignId: string,
): Promise<NetworkCampaign | undefined> {
  if (hasNul(displayId)) {
    return undefined;
  }
  const [row] = await sql<Row[]>`
    UPDATE campaigns SET network_campaign_id = ${networkCampaignId}, updated_at = now()
    WHERE project_id = ${projectId} AND display_id = ${displayId} AND deleted_at IS NULL
    RETURNING id, display_id, network, network_campaign_id, meta_campaign_id`;
  return row ? toNetworkCampaign(row) : undefined;
}
