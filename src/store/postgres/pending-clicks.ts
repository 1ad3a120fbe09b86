// Clicks still in the fact outbox (recorded, not yet in ClickHouse): the attribution job reads
// them too, so an install never waits for the writer's next batch to see its click.
import type { Click } from '../../domain/attribution/types.ts';
import { formatChTime } from '../../lib/time.ts';
import type { Sql } from './pool.ts';

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
    gclid: s(r.gclid),
    gbraid: s(r.gbraid),
    utmSource: s(r.utm_source),
    linkParams: s(r.link_params),
  };
}

/**
 * One lookup of a batch: clicks with this click id, ad id or IP, inside the window [fromMs, toMs],
 * which holds the install's instant atMs.
 */
export type PendingLookup = {
  by: 'clickId' | 'adId' | 'ip';
  value: string;
  fromMs: number;
  atMs: number;
  toMs: number;
};

/** Clicks kept per lookup at or before the install, and after it (those only noted, never winning). */
const MAX_PER_LOOKUP = 200;
const MAX_AFTER_INSTALL = 10;
const COLUMN = { clickId: 'o.fact_id', adId: "o.row->>'ad_id'", ip: "o.row->>'ip'" } as const;
/** Window bounds as the rows' `ts` text (formatChTime), which compares as text; years 1970-9999. */
const tsText = (ms: number) => formatChTime(Math.min(Math.max(ms, 0), 253_402_300_799_999));

/**
 * For each lookup, its clicks still in the outbox inside its window, newest first: at most
 * MAX_PER_LOOKUP at or before the install and MAX_AFTER_INSTALL after it. One statement per kind of
 * lookup in the batch (click id, ad id, IP), whatever the number of installs. The window and the caps
 * are applied per lookup in the statement: a cap shared by the kind's values (200 per value, newest
 * first, windows applied afterwards) let one busy IP's clicks push every other install's clicks out,
 * and its later clicks push out its own, so an install was decided organic while its click waited
 * for the writer and by fingerprint once it reached ClickHouse. One cap over the whole window let
 * 200 clicks of other phones behind a carrier NAT in the hour after the install (clicks that can
 * never win) push out the install's own click.
 */
export async function findPendingClicks(sql: Sql, projectId: string, lookups: PendingLookup[]): Promise<Click[][]> {
  const found: Click[][] = lookups.map(() => []);
  const kinds = [...new Set(lookups.map((l) => l.by))];
  await Promise.all(
    kinds.map(async (by) => {
      const mine = lookups.flatMap((l, i) => (l.by === by ? [{ l, i }] : []));
      const rows = await sql<{ i: number; row: Record<string, unknown> }[]>`
        SELECT i, row FROM (
          SELECT l.i::int AS i, o.row, o.row->>'ts' > l.a AS after,
            row_number() OVER (PARTITION BY l.i, o.row->>'ts' > l.a ORDER BY o.seq DESC) AS n
          FROM unnest(${mine.map((m) => m.i)}::int[], ${mine.map((m) => m.l.value)}::text[],
              ${mine.map((m) => tsText(m.l.fromMs))}::text[], ${mine.map((m) => tsText(m.l.atMs))}::text[],
              ${mine.map((m) => tsText(m.l.toMs))}::text[])
            AS l (i, v, f, a, t)
          JOIN fact_outbox o ON o.fact_table = 'clicks' AND o.project_id = ${projectId}
            AND ${sql.unsafe(COLUMN[by])} = l.v AND o.row->>'ts' BETWEEN l.f AND l.t) x
        WHERE n <= CASE WHEN after THEN ${MAX_AFTER_INSTALL}::int ELSE ${MAX_PER_LOOKUP}::int END
        ORDER BY i, after DESC, n`;
      for (const r of rows) {
        found[r.i]?.push(toClick(r.row));
      }
    }),
  );
  return lookups.map((l, i) => (found[i] ?? []).filter((c) => c.ts >= l.fromMs && c.ts <= l.toMs));
}
