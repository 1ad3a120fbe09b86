// The campaigns a report lists: the project's live campaigns matching active / network / network
// account / search, with their effective domain (own, else the project's primary). Dates never
// filter campaigns (spec). Also the network accounts those campaigns are tied to.
import type { Sql } from './pool.ts';

export type ReportCampaignRecord = {
  id: number;
  displayId: string;
  name: string;
  deeplink: string | null;
  active: boolean;
  network: string | null;
  networkAccountId: number | null;
  google: boolean;
  googleWebToApp: boolean;
  meta: boolean;
  metaWebToApp: boolean;
  domainId: number | null;
  domainName: string | null;
  createdAt: Date;
};

export type ReportCampaignFilter = {
  active: boolean | null;
  /** Normalised code; META and GOOGLE also match the campaign's meta / google flags. */
  network: string | null;
  networkAccountId: number | null;
  /** An ILIKE pattern (escaped, ESCAPE '\'), matched against name, display id, domain, deeplink, website and links. */
  searchPattern: string | null;
  /** A display id read out of a searched link. */
  searchDisplayId: string | null;
  /** The service's public URL: links of campaigns without a domain are served there. */
  publicUrl: string;
};

type Row = {
  id: number;
  display_id: string;
  name: string;
  deeplink: string | null;
  active: boolean;
  network: string | null;
  network_account_id: number | null;
  google: boolean;
  google_web_to_app: boolean;
  meta: boolean;
  meta_web_to_app: boolean;
  domain_id: number | null;
  domain_name: string | null;
  created_at: Date;
};

const toRecord = (r: Row): ReportCampaignRecord => ({
  id: r.id,
  displayId: r.display_id,
  name: r.name,
  deeplink: r.deeplink,
  active: r.active,
  network: r.network,
  networkAccountId: r.network_account_id,
  google: r.google,
  googleWebToApp: r.google_web_to_app,
  meta: r.meta,
  metaWebToApp: r.meta_web_to_app,
  domainId: r.domain_id,
  domainName: r.domain_name,
  createdAt: r.created_at,
});

export async function listReportCampaigns(
  sql: Sql,
  projectId: string,
  f: ReportCampaignFilter,
): Promise<ReportCampaignRecord[]> {
  // Postgres text refuses NUL (`network=%00` was a 500); no stored campaign text holds one, so such
  // a filter matches nothing.
  if ([f.network, f.searchPattern, f.searchDisplayId].some((v) => v?.includes('\0'))) {
    return [];
  }
  const empty = sql``;
  const networkCond =
    f.network === null
      ? empty
      : f.network === 'META' || f.network === 'GOOGLE'
        ? sql`AND (upper(replace(c.network, ' ', '_')) = ${f.network} OR ${f.network === 'META' ? sql`c.meta` : sql`c.google`})`
        : sql`AND upper(replace(c.network, ' ', '_')) = ${f.network}`;
  const base = sql`COALESCE('https://' || d.name, ${f.publicUrl})`;
  const searchCond =
    f.searchPattern === null
      ? empty
      : sql`AND (c.name ILIKE ${f.searchPattern} ESCAPE '\\' OR c.display_id ILIKE ${f.searchPattern} ESCAPE '\\'
          OR d.name ILIKE ${f.searchPattern} ESCAPE '\\' OR c.deeplink ILIKE ${f.searchPattern} ESCAPE '\\'
          OR c.website ILIKE ${f.searchPattern} ESCAPE '\\'
          OR (${base} || '/?c=' || c.display_id) ILIKE ${f.searchPattern} ESCAPE '\\'
          OR (${base} || '/' || c.display_id) ILIKE ${f.searchPattern} ESCAPE '\\'
          ${f.searchDisplayId === null ? empty : sql`OR c.display_id = ${f.searchDisplayId}`})`;
  const rows = await sql<Row[]>`
    SELECT c.id, c.display_id, c.name, c.deeplink, c.active, c.network, c.network_account_id, c.google,
      c.google_web_to_app, c.meta, c.meta_web_to_app, d.id AS domain_id, d.name AS domain_name, c.created_at
    FROM campaigns c
    LEFT JOIN domains d ON d.id = COALESCE(c.domain_id,
      (SELECT p.id FROM domains p WHERE p.project_id = c.project_id AND p.is_primary))
    WHERE c.project_id = ${projectId} AND c.deleted_at IS NULL
      ${f.active === null ? empty : sql`AND c.active = ${f.active}`}
      ${f.networkAccountId === null ? empty : sql`AND c.network_account_id = ${f.networkAccountId}`}
      ${networkCond}
      ${searchCond}
    ORDER BY c.id`;
  return rows.map(toRecord);
}

export type ReportNetworkAccount = {
  id: number;
  name: string;
  email: string;
  status: string;
  capiConfigured: boolean;
  accountName: string | null;
  externalCustomerId: string | null;
};

/** The project's network accounts with these ids (another project's ids find nothing). */
export async function findReportNetworkAccounts(
  sql: Sql,
  projectId: string,
  ids: number[],
): Promise<Map<number, ReportNetworkAccount>> {
  const out = new Map<number, ReportNetworkAccount>();
  if (ids.length === 0) {
    return out;
  }
  const rows = await sql<
    {
      id: number;
      name: string;
      email: string;
      status: string;
      capi_configured: boolean;
      account_name: string | null;
      external_customer_id: string | null;
    }[]
  >`SELECT id, name, email, status, capi_configured, account_name, external_customer_id FROM network_accounts
    WHERE project_id = ${projectId} AND id = ANY(${ids}::int[])`;
  for (const r of rows) {
    out.set(r.id, {
      id: r.id,
      name: r.name,
      email: r.email,
      status: r.status,
      capiConfigured: r.capi_configured,
      accountName: r.account_name,
      externalCustomerId: r.external_customer_id,
    });
  }
  return out;
}
