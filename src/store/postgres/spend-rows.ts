// Ad spend rows (sql/migrations/0010_spend.sql, keyed by md5 of the ids since 0029): one per day × campaign × ad set × creative ×
// keyword × network. Batches go through unnest() arrays, so 10,000 rows are one statement with a
// dozen parameters. Writers of one project are serialised by lockProjectSpend (see upsert-spend.ts).
import { trimDecimal } from '../../lib/money.ts';
import type { Sql } from './pool.ts';

export type SpendKey = {
  day: string;
  campaignId: number;
  adSetId: string;
  creativeId: string;
  keywordId: string;
  network: string;
};

export type SpendRecord = SpendKey & {
  adSetName: string;
  creativeName: string;
  keywordName: string;
  /** Decimal text without trailing zeros. */
  amount: string;
  impressions: number;
  clicks: number;
};

export type SpendCampaign = { id: number; displayId: string; network: string };

// Advisory lock class of spend writers (two-int form: class, hashtext(project id)).
const SPEND_LOCK_CLASS = 7_301_010;

/** Live campaigns of the project among `displayIds`, by display id. */
export async function findSpendCampaigns(
  sql: Sql,
  projectId: string,
  displayIds: string[],
): Promise<Map<string, SpendCampaign>> {
  const rows = await sql<{ id: number; display_id: string; network: string | null }[]>`
    SELECT id, display_id, network FROM campaigns
    WHERE project_id = ${projectId} AND display_id = ANY(${displayIds}::text[]) AND deleted_at IS NULL`;
  return new Map(rows.map((r) => [r.display_id, { id: r.id, displayId: r.display_id, network: r.network ?? '' }]));
}

/** Serialises spend writers of one project until the transaction ends (read, compare, write). */
export async function lockProjectSpend(sql: Sql, projectId: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(${SPEND_LOCK_CLASS}::int, hashtext(${projectId}))`;
}

type Row = {
  day: string;
  campaign_id: number;
  ad_set_id: string;
  ad_set_name: string;
  creative_id: string;
  creative_name: string;
  keyword_id: string;
  keyword_name: string;
  network: string;
  amount: string;
  impressions: string;
  clicks: string;
};

const toRecord = (r: Row): SpendRecord => ({
  day: r.day,
  campaignId: r.campaign_id,
  adSetId: r.ad_set_id,
  adSetName: r.ad_set_name,
  creativeId: r.creative_id,
  creativeName: r.creative_name,
  keywordId: r.keyword_id,
  keywordName: r.keyword_name,
  network: r.network,
  amount: trimDecimal(r.amount),
  impressions: Number(r.impressions),
  clicks: Number(r.clicks),
});

/** The stored rows among `keys`. */
export async function findSpendRows(sql: Sql, projectId: string, keys: SpendKey[]): Promise<SpendRecord[]> {
  if (keys.length === 0) {
    return [];
  }
  const rows = await sql<Row[]>`
    SELECT s.day::text AS day, s.campaign_id, s.ad_set_id, s.ad_set_name, s.creative_id, s.creative_name,
      s.keyword_id, s.keyword_name, s.network, s.amount::text AS amount, s.impressions::text AS impressions,
      s.clicks::text AS clicks
    FROM spend_rows s
    JOIN unnest(${keys.map((k) => k.day)}::date[], ${keys.map((k) => k.campaignId)}::int[],
        ${keys.map((k) => k.adSetId)}::text[], ${keys.map((k) => k.creativeId)}::text[],
        ${keys.map((k) => k.keywordId)}::text[], ${keys.map((k) => k.network)}::text[])
      AS k(day, campaign_id, ad_set_id, creative_id, keyword_id, network)
      ON s.day = k.day AND s.campaign_id = k.campaign_id AND s.ad_set_id = k.ad_set_id
        AND s.creative_id = k.creative_id AND s.keyword_id = k.keyword_id AND s.network = k.network
    WHERE s.project_id = ${projectId}`;
  return rows.map(toRecord);
}

/** Inserts the rows, or replaces every value of the stored row with the same key. */
export async function upsertSpendRows(sql: Sql, projectId: string, rows: SpendRecord[], source: string): Promise<void> {
  if (rows.length === 0) {
    return;
  }
  const col = <T>(f: (r: SpendRecord) => T): T[] => rows.map(f);
  await sql`
    INSERT INTO spend_rows (project_id, day, campaign_id, ad_set_id, ad_set_name, creative_id, creative_name,
      keyword_id, keyword_name, network, amount, impressions, clicks, source)
    SELECT ${projectId}::uuid, u.*, ${source}
    FROM unnest(${col((r) => r.day)}::date[], ${col((r) => r.campaignId)}::int[],
      ${col((r) => r.adSetId)}::text[], ${col((r) => r.adSetName)}::text[],
      ${col((r) => r.creativeId)}::text[], ${col((r) => r.creativeName)}::text[],
      ${col((r) => r.keywordId)}::text[], ${col((r) => r.keywordName)}::text[], ${col((r) => r.network)}::text[],
      ${col((r) => r.amount)}::numeric[], ${col((r) => r.impressions)}::bigint[], ${col((r) => r.clicks)}::bigint[]) AS u
    ON CONFLICT (project_id, day, campaign_id, md5(ad_set_id), md5(creative_id), md5(keyword_id), network)
    DO UPDATE SET
      ad_set_name = EXCLUDED.ad_set_name, creative_name = EXCLUDED.creative_name,
      keyword_name = EXCLUDED.keyword_name, amount = EXCLUDED.amount, impressions = EXCLUDED.impressions,
      clicks = EXCLUDED.clicks, source = EXCLUDED.source, updated_at = now()`;
}
