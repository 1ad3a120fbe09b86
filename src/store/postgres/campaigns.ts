// Campaigns. Every query is scoped by the project taken from the credential, except the display id
// claim: a display id is held by one project at most, across projects (the service host's links name
// no project). A deleted campaign keeps its row (deleted_at) so its display_id is never handed to
// another campaign, of this project or any other.

import { linkTargets } from './link-targets.ts';
import { liveCampaignKey, liveCampaigns } from './live-campaigns.ts';
import type { Sql } from './pool.ts';

export type CampaignRecord = {
  id: number;
  projectId: string;
  displayId: string;
  name: string;
  deeplink: string | null;
  linkForDesktopUsers: string | null;
  androidWebRedirect: string | null;
  iosWebRedirect: string | null;
  website: string | null;
  isShortlink: boolean;
  domainId: number | null;
  domainName: string | null; // the campaign's own domain, else the project's primary
  active: boolean;
  defaultLink: boolean;
  network: string | null;
  google: boolean;
  googleWebToApp: boolean;
  meta: boolean;
  metaCampaignId: string | null;
  metaWebToApp: boolean;
  createdAt: Date;
  updatedAt: Date;
};

type Row = {
  id: number;
  project_id: string;
  display_id: string;
  name: string;
  deeplink: string | null;
  link_for_desktop_users: string | null;
  android_web_redirect: string | null;
  ios_web_redirect: string | null;
  website: string | null;
  is_shortlink: boolean;
  domain_id: number | null;
  domain_name: string | null;
  active: boolean;
  default_link: boolean;
  network: string | null;
  google: boolean;
  google_web_to_app: boolean;
  meta: boolean;
  meta_campaign_id: string | null;
  meta_web_to_app: boolean;
  created_at: Date;
  updated_at: Date;
};

const toRecord = (r: Row): CampaignRecord => ({
  id: r.id,
  projectId: r.project_id,
  displayId: r.display_id,
  name: r.name,
  deeplink: r.deeplink,
  linkForDesktopUsers: r.link_for_desktop_users,
  androidWebRedirect: r.android_web_redirect,
  iosWebRedirect: r.ios_web_redirect,
  website: r.website,
  isShortlink: r.is_shortlink,
  domainId: r.domain_id,
  domainName: r.domain_name,
  active: r.active,
  defaultLink: r.default_link,
  network: r.network,
  google: r.google,
  googleWebToApp: r.google_web_to_app,
  meta: r.meta,
  metaCampaignId: r.meta_campaign_id,
  metaWebToApp: r.meta_web_to_app,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export type NewCampaign = {
  projectId: string;
  displayId: string;
  name: string;
  deeplink: string | null;
  linkForDesktopUsers: string | null;
  androidWebRedirect: string | null;
  iosWebRedirect: string | null;
  website: string | null;
  isShortlink: boolean;
  domainId: number | null;
  network: string | null;
  google: boolean;
  meta: boolean;
};

export const DISPLAY_ID_CONSTRAINT = 'campaigns_display_id_unique';

// Advisory lock class for claiming a display id (two-int form: class, hashtext(display id));
// spend-rows.ts uses 7_301_010, skan.ts 7_301_012 and domains.ts 7_301_014.
const DISPLAY_ID_LOCK_CLASS = 7_301_022;

// Postgres text cannot hold NUL, so a display id with one names no campaign; sending it would fail
// with 22021 (a 500), so lookups answer "no row" without asking.
const hasNul = (s: string): boolean => s.includes('\0');

// The effective domain: the campaign's own, else the project's current primary.
const SELECT_WITH_DOMAIN = (sql: Sql) => sql`
  SELECT c.*, d.name AS domain_name FROM campaigns c
  LEFT JOIN domains d ON d.id = COALESCE(c.domain_id,
    (SELECT p.id FROM domains p WHERE p.project_id = c.project_id AND p.is_primary))`;

/**
 * Locks a display id until the transaction ends, then tells whether it is free: no campaign of any
 * project holds it, deleted ones included. Only (project_id, display_id) is a constraint (databases
 * from before may hold one id in two projects), so two projects creating one id at once are
 * serialised here: the second reads the first's committed row. Call it inside `sql.begin`.
 */
export async function claimDisplayId(tx: Sql, displayId: string): Promise<boolean> {
  await tx`SELECT pg_advisory_xact_lock(${DISPLAY_ID_LOCK_CLASS}::int, hashtext(${displayId}))`;
  const rows = await tx`SELECT 1 FROM campaigns WHERE display_id = ${displayId} LIMIT 1`;
  return rows.length === 0;
}

/**
 * Inserts a campaign; a duplicate display_id raises Postgres 23505 on DISPLAY_ID_CONSTRAINT. It runs
 * inside the create transaction, so the caller clears linkTargets once that has committed.
 */
export async function insertCampaign(sql: Sql, c: NewCampaign): Promise<number> {
  const [row] = await sql<{ id: number }[]>`
    INSERT INTO campaigns (project_id, display_id, name, deeplink, link_for_desktop_users, android_web_redirect,
      ios_web_redirect, website, is_shortlink, domain_id, network, google, meta)
    VALUES (${c.projectId}, ${c.displayId}, ${c.name}, ${c.deeplink}, ${c.linkForDesktopUsers}, ${c.androidWebRedirect},
      ${c.iosWebRedirect}, ${c.website}, ${c.isShortlink}, ${c.domainId}, ${c.network}, ${c.google}, ${c.meta})
    RETURNING id`;
  if (!row) {
    throw new Error('insert into campaigns returned no row');
  }
  return row.id;
}

export async function findCampaignById(sql: Sql, projectId: string, id: number): Promise<CampaignRecord | undefined> {
  const [row] = await sql<Row[]>`${SELECT_WITH_DOMAIN(sql)}
    WHERE c.project_id = ${projectId} AND c.id = ${id} AND c.deleted_at IS NULL`;
  return row ? toRecord(row) : undefined;
}

/** The live campaign with this display id; with `liveAt`, one deleted after that time too (it was live then). */
export async function findCampaignByDisplayId(
  sql: Sql,
  projectId: string,
  displayId: string,
  liveAt?: Date,
): Promise<CampaignRecord | undefined> {
  if (hasNul(displayId)) {
    return undefined;
  }
  const live = liveAt ? sql`(c.deleted_at IS NULL OR c.deleted_at > ${liveAt})` : sql`c.deleted_at IS NULL`;
  const [row] = await sql<Row[]>`${SELECT_WITH_DOMAIN(sql)}
    WHERE c.project_id = ${projectId} AND c.display_id = ${displayId} AND ${live}`;
  return row ? toRecord(row) : undefined;
}

export type CampaignFilter = {
  active?: boolean;
  google?: boolean;
  meta?: boolean;
  network?: string; // normalised code
  domainId?: number;
  displayId?: string;
};

export async function listCampaigns(
  sql: Sql,
  projectId: string,
  f: CampaignFilter,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: CampaignRecord[] }> {
  if (f.displayId !== undefined && hasNul(f.displayId)) {
    return { total: 0, rows: [] };
  }
  const empty = sql``;
  const rows = await sql<(Row & { total: number })[]>`
    SELECT c.*, d.name AS domain_name, count(*) OVER ()::int AS total FROM campaigns c
    LEFT JOIN domains d ON d.id = COALESCE(c.domain_id,
      (SELECT p.id FROM domains p WHERE p.project_id = c.project_id AND p.is_primary))
    WHERE c.project_id = ${projectId} AND c.deleted_at IS NULL
      ${f.active === undefined ? empty : sql`AND c.active = ${f.active}`}
      ${f.google ? sql`AND c.google` : empty}
      ${f.meta ? sql`AND c.meta` : empty}
      ${f.network === undefined ? empty : sql`AND upper(replace(c.network, ' ', '_')) = ${f.network}`}
      ${f.displayId === undefined ? empty : sql`AND c.display_id = ${f.displayId}`}
      ${f.domainId === undefined ? empty : sql`AND d.id = ${f.domainId}`}
    ORDER BY c.created_at DESC, c.id DESC
    LIMIT ${page.limit} OFFSET ${page.offset}`;
  let total = rows[0]?.total;
  if (total === undefined) {
    // An empty page past the end still reports how many rows match.
    total = page.offset === 0 ? 0 : (await listCampaigns(sql, projectId, f, { offset: 0, limit: 1 })).total;
  }
  return { total, rows: rows.map(toRecord) };
}

export async function updateCampaign(
  sql: Sql,
  projectId: string,
  displayId: string,
  patch: { name?: string; active?: boolean },
): Promise<boolean> {
  if (hasNul(displayId)) {
    return false;
  }
  const res = await sql`
    UPDATE campaigns SET
      name = COALESCE(${patch.name ?? null}, name),
      active = COALESCE(${patch.active ?? null}::boolean, active),
      updated_at = now()
    WHERE project_id = ${projectId} AND display_id = ${displayId} AND deleted_at IS NULL`;
  linkTargets.clear();
  return res.count === 1;
}

export async function softDeleteCampaign(sql: Sql, projectId: string, displayId: string): Promise<boolean> {
  if (hasNul(displayId)) {
    return false;
  }
  const res = await sql`
    UPDATE campaigns SET deleted_at = now(), active = false, updated_at = now()
    WHERE project_id = ${projectId} AND display_id = ${displayId} AND deleted_at IS NULL`;
  linkTargets.clear();
  liveCampaigns.forgetKey(liveCampaignKey(projectId, displayId));
  return res.count === 1;
}

/**
 * Users attributed to each campaign: users registered (trigger) through an install attributed to
 * it. The same definition as attributed-users, so the list's count matches that endpoint's total.
 */
export async function countAttributedUsers(
  sql: Sql,
  projectId: string,
  campaignIds: number[],
): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  if (campaignIds.length === 0) {
    return out;
  }
  const rows = await sql<{ campaign_id: number; n: number }[]>`
    SELECT i.campaign_id, count(*)::int AS n FROM app_users u
    JOIN installs i ON i.project_id = u.project_id AND i.install_instance_id = u.install_instance_id
    WHERE u.project_id = ${projectId} AND i.campaign_id = ANY(${campaignIds}::int[])
    GROUP BY i.campaign_id`;
  for (const r of rows) {
    out.set(r.campaign_id, r.n);
  }
  return out;
}

/** Distinct normalised network codes used by the project's campaigns and network accounts. */
export async function listNetworkCodes(sql: Sql, projectId: string): Promise<Set<string>> {
  const rows = await sql<{ code: string }[]>`
    SELECT upper(replace(network, ' ', '_')) AS code FROM campaigns WHERE project_id = ${projectId} AND network IS NOT NULL
    UNION SELECT upper(replace(network, ' ', '_')) FROM network_accounts WHERE project_id = ${projectId}`;
  return new Set(rows.map((r) => r.code));
}
