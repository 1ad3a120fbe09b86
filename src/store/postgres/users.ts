// App users (trigger, set-user-data, customer-user-id, attributed-users) and the tie between an
// install and its user. Every query is scoped by the project taken from the credential.
import type { Sql } from './pool.ts';

/** Extras merged past this many keys replace the stored ones instead (a user row stays bounded). */
const MAX_EXTRA_KEYS = 300;

/**
 * `incoming` user_data fields over `current` (SQL expressions), except that "" or null never
 * replaces a stored value: RN's bridge sends "" for a JS null, as for name, email and phone, and a
 * later call with `mixpanel_distinct_id: ""` erased the stored id.
 */
function mergedExtras(sql: Sql, current: string, incoming: ReturnType<Sql['unsafe']> | ReturnType<Sql>) {
  const cur = sql.unsafe(current);
  return sql`${cur} || COALESCE((SELECT jsonb_object_agg(e.key, e.value) FROM jsonb_each(${incoming}) e
    WHERE NOT (e.value IN ('""'::jsonb, 'null'::jsonb) AND ${cur} ? e.key)), '{}'::jsonb)`;
}

export type NewAppUser = {
  projectId: string;
  userId: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  /** user_data fields other than id / name / email / phone, as sent. */
  extras: Record<string, unknown>;
  deviceData: Record<string, unknown>;
  installInstanceId: string;
  isFirstTimeUser: boolean | null;
  userCreatedAt: string | null;
  attributedAt: Date;
};

export type TiedInstall = {
  platform: string;
  attributionStatus: 'pending' | 'decided';
  campaignId: number | null;
  isReinstall: boolean;
  /** The winning link's own parameters (referral codes), returned inside trigger's deeplink. */
  linkParams: string;
  /** Uninstall tracking holds state for it (marked uninstalled, or counting failed pushes). */
  pushStateSet: boolean;
};

/**
 * Ties an install to a user id and marks it a reinstall when the user already belongs to an
 * earlier install of the project (tied to it, or registered on it) created within the reattribution
 * window before it, as device ids are (reinstalls.ts). Only the install's first tie to this user
 * decides: a repeated trigger on it is a re-login, so a sign-up on B, a login on an older A and a
 * trigger again on B leave B a first install. The user's registering install is never marked by a
 * later tie (`registers`: this call just registered the user, whose registration decides), so an
 * account switch on B (U, then V, then U again) leaves it a first install too. Undefined: no such
 * install.
 */
export async function tieInstallToUser(
  sql: Sql,
  projectId: string,
  installInstanceId: string,
  userId: string,
  reattributionWindowMs: number,
  registers: boolean,
): Promise<TiedInstall | undefined> {
  const [row] = await sql<
    {
      platform: string;
      attribution_status: 'pending' | 'decided';
      campaign_id: number | null;
      is_reinstall: boolean;
      link_params: string;
      push_state_set: boolean;
    }[]
  >`
    UPDATE installs i SET user_id = ${userId},
      -- Two EXISTS, not one with an OR across two columns: each reads one index (installs_user, the
      -- primary key) where the OR read every install of the project (~2.4 ms a trigger at 4k installs).
      is_reinstall = i.is_reinstall OR (i.user_id IS DISTINCT FROM ${userId} AND (${registers}
        OR i.install_instance_id IS DISTINCT FROM (
          SELECT u.install_instance_id FROM app_users u WHERE u.project_id = ${projectId} AND u.user_id = ${userId}))
      AND (EXISTS (
        SELECT 1 FROM installs o
        WHERE o.project_id = i.project_id AND o.user_id = ${userId}
          AND o.install_instance_id <> i.install_instance_id AND o.created_at < i.created_at
          AND o.created_at >= i.created_at - ${reattributionWindowMs}::bigint * interval '1 millisecond'
      ) OR EXISTS (
        SELECT 1 FROM installs o
        WHERE o.project_id = i.project_id AND o.install_instance_id = (
            SELECT u.install_instance_id FROM app_users u WHERE u.project_id = ${projectId} AND u.user_id = ${userId})
          AND o.install_instance_id <> i.install_instance_id AND o.created_at < i.created_at
          AND o.created_at >= i.created_at - ${reattributionWindowMs}::bigint * interval '1 millisecond')))
    WHERE i.project_id = ${projectId} AND i.install_instance_id = ${installInstanceId}
    RETURNING i.platform, i.attribution_status, i.campaign_id, i.is_reinstall, i.link_params,
      i.uninstalled_at IS NOT NULL OR i.push_failures > 0 AS push_state_set`;
  return row
    ? {
        platform: row.platform,
        attributionStatus: row.attribution_status,
        campaignId: row.campaign_id,
        isReinstall: row.is_reinstall,
        linkParams: row.link_params,
        pushStateSet: row.push_state_set,
      }
    : undefined;
}

/**
 * Creates the user (first trigger) or refreshes its details (a later trigger: a login). The install
 * that registered the user, the registration time and the first-time flags of the registration
 * are kept. `created` is true only for the call that inserted the row, even under concurrency.
 */
export async function upsertAppUser(sql: Sql, u: NewAppUser): Promise<{ created: boolean }> {
  const [row] = await sql<{ created: boolean }[]>`
    INSERT INTO app_users (project_id, user_id, name, email, phone, user_data, device_data, install_instance_id,
      is_first_time_user, user_created_at, attributed_at, created_at, updated_at)
    VALUES (${u.projectId}, ${u.userId}, ${u.name}, ${u.email}, ${u.phone}, ${sql.json(u.extras as never)},
      ${sql.json(u.deviceData as never)}, ${u.installInstanceId}, ${u.isFirstTimeUser}, ${u.userCreatedAt},
      ${u.attributedAt}, ${u.attributedAt}, ${u.attributedAt})
    ON CONFLICT (project_id, user_id) DO UPDATE SET
      name = COALESCE(EXCLUDED.name, app_users.name),
      email = COALESCE(EXCLUDED.email, app_users.email),
      phone = COALESCE(EXCLUDED.phone, app_users.phone),
      user_data = CASE WHEN (SELECT count(*) FROM jsonb_object_keys(app_users.user_data || EXCLUDED.user_data))
          > ${MAX_EXTRA_KEYS} THEN EXCLUDED.user_data
        ELSE ${mergedExtras(sql, 'app_users.user_data', sql.unsafe('EXCLUDED.user_data'))} END,
      -- The registering install's device stays the user's (attributed-users pairs it with that
      -- install's campaign): a login from another device does not replace it.
      device_data = CASE WHEN EXCLUDED.device_data = '{}'::jsonb OR (app_users.device_data <> '{}'::jsonb
          AND app_users.install_instance_id IS DISTINCT FROM EXCLUDED.install_instance_id)
        THEN app_users.device_data ELSE EXCLUDED.device_data END,
      is_first_time_user = COALESCE(app_users.is_first_time_user, EXCLUDED.is_first_time_user),
      user_created_at = COALESCE(app_users.user_created_at, EXCLUDED.user_created_at),
      updated_at = EXCLUDED.updated_at
    RETURNING (xmax = 0) AS created`;
  return { created: row?.created ?? false };
}

export type UserPatch = {
  name: string | null;
  email: string | null;
  phone: string | null;
  extras: Record<string, unknown>;
  deviceData: Record<string, unknown>;
};

/** Updates an existing user's details (absent fields stay); false when the user does not exist. */
export async function updateAppUser(sql: Sql, projectId: string, userId: string, p: UserPatch): Promise<boolean> {
  const extras = sql.json(p.extras as never);
  const deviceData = sql.json(p.deviceData as never);
  const res = await sql`
    UPDATE app_users SET
      name = COALESCE(${p.name}, name),
      email = COALESCE(${p.email}, email),
      phone = COALESCE(${p.phone}, phone),
      user_data = CASE WHEN (SELECT count(*) FROM jsonb_object_keys(user_data || ${extras}::jsonb)) > ${MAX_EXTRA_KEYS}
        THEN ${extras}::jsonb ELSE ${mergedExtras(sql, 'user_data', sql`${extras}::jsonb`)} END,
      device_data = CASE WHEN ${deviceData}::jsonb = '{}'::jsonb THEN device_data ELSE ${deviceData}::jsonb END,
      updated_at = now()
    WHERE project_id = ${projectId} AND user_id = ${userId}`;
  return res.count === 1;
}

/** The users an install registered (app_users.install_instance_id; several on a shared device). */
export async function findUsersRegisteredBy(sql: Sql, projectId: string, installInstanceId: string): Promise<string[]> {
  const rows = await sql<{ user_id: string }[]>`
    SELECT user_id FROM app_users WHERE project_id = ${projectId} AND install_instance_id = ${installInstanceId}`;
  return rows.map((r) => r.user_id);
}

/** The user id an install is tied to: null when none, undefined when the install is unknown. */
export async function findInstallUserId(
  sql: Sql,
  projectId: string,
  installInstanceId: string,
): Promise<string | null | undefined> {
  const [row] = await sql<{ user_id: string | null }[]>`
    SELECT user_id FROM installs WHERE project_id = ${projectId} AND install_instance_id = ${installInstanceId}`;
  return row ? row.user_id : undefined;
}

export type AttributedUserRow = {
  userId: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  extras: Record<string, unknown>;
  deviceData: Record<string, unknown>;
  attributedAt: Date;
  installedAt: Date;
  storeClickAt: Date | null;
  platform: string;
  network: string | null;
  adSetId: string | null;
  adSetName: string | null;
  creativeId: string | null;
  creativeName: string | null;
  /** What the network's claim told beyond ad set and creative (Meta's publisher_platform, …); null when nothing. */
  networkDetails: Record<string, string | boolean> | null;
};

type Row = {
  user_id: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  user_data: Record<string, unknown>;
  device_data: Record<string, unknown>;
  attributed_at: Date;
  installed_at: Date;
  store_click_at: Date | null;
  platform: string;
  network: string | null;
  ad_set_id: string | null;
  ad_set_name: string | null;
  creative_id: string | null;
  creative_name: string | null;
  network_details: Record<string, string | boolean> | null;
  total: number;
};

export type AttributedWindow = { from: Date | null; to: Date | null };

/**
 * Users whose registering install is attributed to the campaign, registered (attributed_at) within
 * the inclusive window; newest first, ties by user id so pages are stable.
 */
export async function findAttributedUsers(
  sql: Sql,
  projectId: string,
  campaignId: number,
  w: AttributedWindow,
  page: { offset: number; limit: number },
): Promise<{ total: number; rows: AttributedUserRow[] }> {
  const empty = sql``;
  const rows = await sql<Row[]>`
    SELECT u.user_id, u.name, u.email, u.phone, u.user_data, u.device_data, u.attributed_at,
      i.created_at AS installed_at, i.store_click_at, i.platform, i.network, i.ad_set_id, i.ad_set_name,
      i.creative_id, i.creative_name, i.network_details, count(*) OVER ()::int AS total
    FROM app_users u
    JOIN installs i ON i.project_id = u.project_id AND i.install_instance_id = u.install_instance_id
    WHERE u.project_id = ${projectId} AND i.campaign_id = ${campaignId}
      ${w.from ? sql`AND u.attributed_at >= ${w.from}` : empty}
      ${w.to ? sql`AND u.attributed_at <= ${w.to}` : empty}
    ORDER BY u.attributed_at DESC, u.user_id
    LIMIT ${page.limit} OFFSET ${page.offset}`;
  let total = rows[0]?.total;
  if (total === undefined) {
    // A page past the end still reports how many users match.
    total =
      page.offset === 0 ? 0 : (await findAttributedUsers(sql, projectId, campaignId, w, { offset: 0, limit: 1 })).total;
  }
  return {
    total,
    rows: rows.map((r) => ({
      userId: r.user_id,
      name: r.name,
      email: r.email,
      phone: r.phone,
      extras: r.user_data,
      deviceData: r.device_data,
      attributedAt: r.attributed_at,
      installedAt: r.installed_at,
      storeClickAt: r.store_click_at,
      platform: r.platform,
      network: r.network,
      adSetId: r.ad_set_id,
      adSetName: r.ad_set_name,
      creativeId: r.creative_id,
      creativeName: r.creative_name,
      networkDetails: r.network_details,
    })),
  };
}
