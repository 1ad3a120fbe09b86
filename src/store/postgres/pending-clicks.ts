// Clicks still in the fact outbox (recorded, not yet in ClickHouse): the attribution job reads
// them too, so an install never waits for the writer's next batch to see its click.
import type { Click } from '../../domain/attribution/types.ts';
import type { Sql } from './pool.ts';

type Row = { row: Record<string, unknown> };

const s = (v: unknown): string => (typeof v === 'string' ? v : '');

function toClick(r: Record<string, unknown>): Click {
  return {
    clickId: s(r.click_id),
    ts: Date.parse(`${s(r.ts).replace(' ', 'T')}Z`),
    campaignId: Number(r.campaign_id) || 0,
    displayId: s(r.display_id),
    platform: s(r.platform),
    ip: s(r.ip),
    os: s(r.os),
    osVersion: s(r.os_version),
    deviceModel: s(r.device_model),
    network: s(r.network),
    adSetId: s(r.ad_set_id),
    adSetName: s(r.ad_set_name),
    creativeId: s(r.creative_id),
    creativeName: s(r.creative_name),
    keywordId: s(r.keyword_id),
    keywordName: s(r.keyword_name),
  };
}

export type PendingClickFilter = { clickId: string } | { adId: string } | { ip: string };

export async function findPendingClicks(
  sql: Sql,
  projectId: string,
  filter: PendingClickFilter,
  window: { fromMs: number; toMs: number },
): Promise<Click[]> {
  const where =
    'clickId' in filter
      ? sql`fact_id = ${filter.clickId}`
      : 'adId' in filter
        ? sql`row->>'ad_id' = ${filter.adId}`
        : sql`row->>'ip' = ${filter.ip}`;
  const rows = await sql<Row[]>`
    SELECT row FROM fact_outbox WHERE fact_table = 'clicks' AND project_id = ${projectId} AND ${where} LIMIT 200`;
  return rows.map((r) => toClick(r.row)).filter((c) => c.ts >= window.fromMs && c.ts <= window.toMs);
}
