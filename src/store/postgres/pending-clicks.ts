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

/** One lookup of a batch: clicks with this click id, ad id or IP, inside the window. */
export type PendingLookup = { by: 'clickId' | 'adId' | 'ip'; value: string; fromMs: number; toMs: number };

const MAX_PER_LOOKUP = 200;
const COLUMN = { clickId: 'fact_id', adId: "row->>'ad_id'", ip: "row->>'ip'" } as const;
const VALUE_OF = {
  clickId: (r: Record<string, unknown>) => s(r.click_id),
  adId: (r: Record<string, unknown>) => s(r.ad_id),
  ip: (r: Record<string, unknown>) => s(r.ip),
};

/**
 * For each lookup, its clicks still in the outbox, newest first: one statement per kind of lookup
 * in the batch (click id, ad id, IP), whatever the number of installs.
 */
export async function findPendingClicks(sql: Sql, projectId: string, lookups: PendingLookup[]): Promise<Click[][]> {
  const found = new Map<string, Click[]>();
  const kinds = [...new Set(lookups.map((l) => l.by))];
  await Promise.all(
    kinds.map(async (by) => {
      const values = [...new Set(lookups.filter((l) => l.by === by).map((l) => l.value))];
      const rows = await sql<Row[]>`
        SELECT row FROM fact_outbox WHERE fact_table = 'clicks' AND project_id = ${projectId}
          AND ${sql.unsafe(COLUMN[by])} = ANY(${values}::text[])
        ORDER BY seq DESC LIMIT ${MAX_PER_LOOKUP * values.length}`;
      for (const r of rows) {
        const key = `${by}:${VALUE_OF[by](r.row)}`;
        const list = found.get(key);
        const click = toClick(r.row);
        list ? list.push(click) : found.set(key, [click]);
      }
    }),
  );
  return lookups.map((l) =>
    (found.get(`${l.by}:${l.value}`) ?? []).filter((c) => c.ts >= l.fromMs && c.ts <= l.toMs).slice(0, MAX_PER_LOOKUP),
  );
}
