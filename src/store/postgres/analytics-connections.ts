// SQL of a project's analytics connections (sql/migrations/0036_analytics_connections.sql, 0038,
// 0039): Braze, Mixpanel, Amplitude, PostHog, GA4 and CleverTap, each with its endpoint, sealed key
// and (GA4, CleverTap) account. Every trigger asks which vendors are active, so a project's active
// set is read once and cached (lookup-cache.ts).
import { lookupCache } from './lookup-cache.ts';
import type { Sql } from './pool.ts';

export type AnalyticsVendor = 'braze' | 'mixpanel' | 'amplitude' | 'posthog' | 'ga4' | 'clevertap';

export type AnalyticsConnection = {
  projectId: string;
  vendor: AnalyticsVendor;
  endpoint: string;
  /** GA4's firebase_app_id, CleverTap's account id (neither a secret); '' for the other vendors. */
  accountId: string;
  keyEnc: string;
  keyFingerprint: string;
  active: boolean;
  activatedAt: Date | null;
  updatedAt: Date;
};

type Row = {
  project_id: string;
  vendor: AnalyticsVendor;
  endpoint: string;
  account_id: string;
  key_enc: string;
  key_fingerprint: string;
  active: boolean;
  activated_at: Date | null;
  updated_at: Date;
};

const toConnection = (r: Row): AnalyticsConnection => ({
  projectId: r.project_id,
  vendor: r.vendor,
  endpoint: r.endpoint,
  accountId: r.account_id,
  keyEnc: r.key_enc,
  keyFingerprint: r.key_fingerprint,
  active: r.active,
  activatedAt: r.activated_at,
  updatedAt: r.updated_at,
});

const activeByProject = lookupCache<AnalyticsVendor[]>();

/** activated_at moves only when the connection turns active; inactive clears it. */
export async function upsertAnalyticsConnection(
  sql: Sql,
  c: Omit<AnalyticsConnection, 'activatedAt' | 'updatedAt'>,
  now: Date,
): Promise<AnalyticsConnection> {
  const [row] = await sql<Row[]>`
    INSERT INTO analytics_connections (project_id, vendor, endpoint, account_id, key_enc, key_fingerprint, active,
      activated_at, created_at, updated_at)
    VALUES (${c.projectId}, ${c.vendor}, ${c.endpoint}, ${c.accountId}, ${c.keyEnc}, ${c.keyFingerprint}, ${c.active},
      ${c.active ? now : null}, ${now}, ${now})
    ON CONFLICT (project_id, vendor) DO UPDATE SET
      endpoint = EXCLUDED.endpoint, account_id = EXCLUDED.account_id, key_enc = EXCLUDED.key_enc, key_fingerprint = EXCLUDED.key_fingerprint,
      active = EXCLUDED.active, updated_at = EXCLUDED.updated_at,
      activated_at = CASE WHEN NOT EXCLUDED.active THEN NULL
        WHEN analytics_connections.active THEN analytics_connections.activated_at ELSE EXCLUDED.activated_at END
    RETURNING *`;
  activeByProject.forgetKey(c.projectId);
  return toConnection(row as Row);
}

export async function findAnalyticsConnection(
  sql: Sql,
  projectId: string,
  vendor: AnalyticsVendor,
): Promise<AnalyticsConnection | undefined> {
  const [row] = await sql<Row[]>`
    SELECT * FROM analytics_connections WHERE project_id = ${projectId} AND vendor = ${vendor}`;
  return row ? toConnection(row) : undefined;
}

export async function deleteAnalyticsConnection(
  sql: Sql,
  projectId: string,
  vendor: AnalyticsVendor,
): Promise<boolean> {
  const res = await sql`DELETE FROM analytics_connections WHERE project_id = ${projectId} AND vendor = ${vendor}`;
  activeByProject.forgetKey(projectId);
  return res.count > 0;
}

/** The vendors the project sends to now (cached for LOOKUP_CACHE_TTL_MS: asked on every trigger). */
export function findActiveAnalyticsVendors(sql: Sql, projectId: string): Promise<AnalyticsVendor[]> {
  return activeByProject.get(projectId, async () => {
    const rows = await sql<{ vendor: AnalyticsVendor }[]>`
      SELECT vendor FROM analytics_connections WHERE project_id = ${projectId} AND active ORDER BY vendor`;
    return rows.map((r) => r.vendor);
  });
}
