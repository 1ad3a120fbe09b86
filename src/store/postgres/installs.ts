// Install identity and its attribution state. Every query is scoped by project.
import type { Sql } from './pool.ts';

export type InstallRecord = {
  projectId: string;
  installInstanceId: string;
  processingId: string;
  platform: string;
  createdAt: Date;
  lastSeenAt: Date;
  previousSeenAt: Date | null;
  gaid: string | null;
  idfa: string | null;
  idfv: string | null;
  androidId: string | null;
  ip: string;
  userAgent: string;
  os: string;
  osVersion: string;
  deviceModel: string;
  installRef: string;
  installBeginAt: Date | null;
  metaInstallRef: Record<string, unknown> | null;
  appleAdsToken: string | null;
  initLink: string | null;
  userId: string | null;
  attributionStatus: 'pending' | 'decided';
  decisionId: string | null;
  attributionMethod: string | null;
  campaignId: number | null;
  attributedAt: Date | null;
  isReinstall: boolean;
  suspicious: boolean;
  clickId: string | null;
  storeClickAt: Date | null;
  network: string | null;
  adSetId: string | null;
  adSetName: string | null;
  creativeId: string | null;
  creativeName: string | null;
  keywordId: string | null;
  keywordName: string | null;
  /** The winning link's own query parameters, encoded (referral codes); '' when none. */
  linkParams: string;
  reengagedAt: Date | null;
  reengagementCampaignId: number | null;
  /** Re-engagements before the last one, within handle-deeplink's retry span: campaign id -> epoch ms. */
  priorReengagements: Record<string, number>;
  /** Marked uninstalled by the push pass (cleared by the install's next request). */
  uninstalled: boolean;
};

type Row = Record<string, unknown>;

const toInstall = (r: Row): InstallRecord => ({
  projectId: r.project_id as string,
  installInstanceId: r.install_instance_id as string,
  processingId: r.processing_id as string,
  platform: r.platform as string,
  createdAt: r.created_at as Date,
  lastSeenAt: r.last_seen_at as Date,
  previousSeenAt: (r.previous_seen_at as Date | null) ?? null,
  gaid: r.gaid as string | null,
  idfa: r.idfa as string | null,
  idfv: r.idfv as string | null,
  androidId: r.android_id as string | null,
  ip: r.ip as string,
  userAgent: r.user_agent as string,
  os: r.os as string,
  osVersion: r.os_version as string,
  deviceModel: r.device_model as string,
  installRef: r.install_ref as string,
  installBeginAt: r.install_begin_at as Date | null,
  metaInstallRef: (r.meta_install_ref ?? null) as Record<string, unknown> | null,
  appleAdsToken: (r.apple_ads_token ?? null) as string | null,
  initLink: r.init_link as string | null,
  userId: r.user_id as string | null,
  attributionStatus: r.attribution_status as 'pending' | 'decided',
  decisionId: r.decision_id as string | null,
  attributionMethod: r.attribution_method as string | null,
  campaignId: r.campaign_id as number | null,
  attributedAt: r.attributed_at as Date | null,
  isReinstall: r.is_reinstall as boolean,
  suspicious: r.suspicious as boolean,
  clickId: r.click_id as string | null,
  storeClickAt: r.store_click_at as Date | null,
  network: r.network as string | null,
  adSetId: r.ad_set_id as string | null,
  adSetName: r.ad_set_name as string | null,
  creativeId: r.creative_id as string | null,
  creativeName: r.creative_name as string | null,
  keywordId: r.keyword_id as string | null,
  keywordName: r.keyword_name as string | null,
  linkParams: (r.link_params as string | null | undefined) ?? '',
  reengagedAt: r.reengaged_at as Date | null,
  reengagementCampaignId: r.reengagement_campaign_id as number | null,
  priorReengagements: (r.prior_reengagements as Record<string, number> | null | undefined) ?? {},
  uninstalled: r.uninstalled_at !== null && r.uninstalled_at !== undefined,
});

export type NewInstall = {
  projectId: string;
  installInstanceId: string;
  processingId: string;
  platform: string;
  gaid: string | null;
  idfa: string | null;
  idfv: string | null;
  androidId: string | null;
  ip: string;
  userAgent: string;
  os: string;
  osVersion: string;
  deviceModel: string;
  appVersion: string;
  packageVersion: string;
  deviceData: Record<string, unknown>;
  installRef: string;
  installBeginAt: Date | null;
  metaInstallRef: Record<string, unknown> | null;
  appleAdsToken: string | null;
  initLink: string | null;
  /** The API's clock (deps.now), which stamps the init's fact: created_at and last_seen_at take it. */
  at: Date;
};

/**
 * Inserts the install, or counts another open of it; `created` tells which. A device id the first
 * init lacked is taken from a later one (iOS sends idfa only once ATT is granted, after the first
 * launch; an Android gaid may come late): kept first-init only, the install was never found by it
 * (get-attribution-result 204) and a pending install never got its ad id signal. One it has is kept.
 * `idsFilled`: this open gave the install a device id it lacked (a decided install's reinstall flag
 * is then checked again). `prev` reads the row as the statement began; a row another init changed
 * meanwhile can only make it true once more, which costs one more check and changes nothing.
 */
export async function upsertInstall(
  sql: Sql,
  i: NewInstall,
): Promise<{ created: boolean; idsFilled: boolean; install: InstallRecord }> {
  const [row] = await sql<Row[]>`
    WITH prev AS (SELECT gaid, idfa, idfv, android_id FROM installs
      WHERE project_id = ${i.projectId} AND install_instance_id = ${i.installInstanceId})
    INSERT INTO installs (project_id, install_instance_id, processing_id, platform, gaid, idfa, idfv, android_id, ip,
      user_agent, os, os_version, device_model, app_version, package_version, device_data, install_ref,
      install_begin_at, meta_install_ref, apple_ads_token, init_link, created_at, last_seen_at)
    VALUES (${i.projectId}, ${i.installInstanceId}, ${i.processingId}, ${i.platform}, ${i.gaid}, ${i.idfa}, ${i.idfv},
      ${i.androidId}, ${i.ip}, ${i.userAgent}, ${i.os}, ${i.osVersion}, ${i.deviceModel}, ${i.appVersion},
      ${i.packageVersion}, ${sql.json(i.deviceData as never)}, ${i.installRef}, ${i.installBeginAt},
      ${i.metaInstallRef ? sql.json(i.metaInstallRef as never) : null}, ${i.appleAdsToken}, ${i.initLink}, ${i.at},
      ${i.at})
    ON CONFLICT (project_id, install_instance_id) DO UPDATE SET
      previous_seen_at = installs.last_seen_at, last_seen_at = EXCLUDED.last_seen_at, open_count = installs.open_count + 1,
      app_version = EXCLUDED.app_version, package_version = EXCLUDED.package_version,
      gaid = COALESCE(NULLIF(installs.gaid, ''), EXCLUDED.gaid), idfa = COALESCE(NULLIF(installs.idfa, ''), EXCLUDED.idfa),
      idfv = COALESCE(NULLIF(installs.idfv, ''), EXCLUDED.idfv),
      android_id = COALESCE(NULLIF(installs.android_id, ''), EXCLUDED.android_id),
      install_ref = CASE WHEN installs.install_ref = '' THEN EXCLUDED.install_ref ELSE installs.install_ref END,
      init_link = COALESCE(installs.init_link, EXCLUDED.init_link)
    RETURNING (xmax = 0) AS created, NOT EXISTS (SELECT 1 FROM prev WHERE
        prev.gaid IS NOT DISTINCT FROM installs.gaid AND prev.idfa IS NOT DISTINCT FROM installs.idfa
        AND prev.idfv IS NOT DISTINCT FROM installs.idfv AND prev.android_id IS NOT DISTINCT FROM installs.android_id
      ) AS ids_filled, *`;
  if (!row) {
    throw new Error('upsert into installs returned no row');
  }
  const created = row.created as boolean;
  return { created, idsFilled: !created && (row.ids_filled as boolean), install: toInstall(row) };
}

export async function findInstall(
  sql: Sql,
  projectId: string,
  installInstanceId: string,
): Promise<InstallRecord | undefined> {
  const [row] = await sql<Row[]>`
    SELECT * FROM installs WHERE project_id = ${projectId} AND install_instance_id = ${installInstanceId}`;
  return row ? toInstall(row) : undefined;
}

/** The install, locked until the transaction ends: a decision made on it is not raced by another. */
export async function lockInstall(
  tx: Sql,
  projectId: string,
  installInstanceId: string,
): Promise<InstallRecord | undefined> {
  const [row] = await tx<Row[]>`
    SELECT * FROM installs WHERE project_id = ${projectId} AND install_instance_id = ${installInstanceId} FOR UPDATE`;
  return row ? toInstall(row) : undefined;
}

/** Installs by (project, install id), in one statement; a key without an install is left out. */
export async function findInstalls(
  sql: Sql,
  keys: { projectId: string; installInstanceId: string }[],
): Promise<InstallRecord[]> {
  const rows = await sql<Row[]>`
    SELECT i.* FROM unnest(${keys.map((k) => k.projectId)}::uuid[], ${keys.map((k) => k.installInstanceId)}::text[]) AS k (p, iid)
      JOIN installs i ON i.project_id = k.p AND i.install_instance_id = k.iid`;
  return rows.map(toInstall);
}

export type SavedDecision = {
  decisionId: string;
  method: string;
  campaignId: number | null;
  isReinstall: boolean;
  suspicious: boolean;
  clickId: string | null;
  storeClickAt: Date | null;
  network: string | null;
  adSetId: string;
  adSetName: string;
  creativeId: string;
  creativeName: string;
  keywordId: string;
  keywordName: string;
  /** The winning link's own query parameters, encoded (referral codes); '' when none. */
  linkParams: string;
  /** The winning touch's network details (webhooks' google/meta_campaign_details); null when none. */
  networkDetails: Record<string, string | boolean> | null;
};

/**
 * Records the decision unless one was already made (a retried job decides once): 'saved', or
 * 'decided' when another run saved first. 'stale' when the install is still pending but a signal the
 * decision was made from changed meanwhile (a late Play referrer from attribution-data, a campaign
 * link replacing one that named none, a device id a later init filled): the decision is not saved,
 * and the caller decides again on the install as it is now.
 */
export async function saveInstallDecision(
  sql: Sql,
  from: InstallRecord,
  d: SavedDecision,
): Promise<'saved' | 'decided' | 'stale'> {
  // is_reinstall is OR-ed: a trigger may already have marked the install (its user was seen before).
  // The outer SELECT reads the row as the statement found it (pending unless another run won).
  const [row] = await sql<{ saved: boolean; pending: boolean | null }[]>`
    WITH saved AS (
      UPDATE installs SET attribution_status = 'decided', decision_id = ${d.decisionId}, attribution_method = ${d.method},
        campaign_id = ${d.campaignId}, attributed_at = now(), is_reinstall = (is_reinstall OR ${d.isReinstall}), suspicious = ${d.suspicious},
        click_id = ${d.clickId}, store_click_at = ${d.storeClickAt}, network = ${d.network},
        ad_set_id = ${d.adSetId}, ad_set_name = ${d.adSetName}, creative_id = ${d.creativeId},
        creative_name = ${d.creativeName}, keyword_id = ${d.keywordId}, keyword_name = ${d.keywordName},
        link_params = ${d.linkParams},
        network_details = ${d.networkDetails === null ? null : sql.json(d.networkDetails)}
      WHERE project_id = ${from.projectId} AND install_instance_id = ${from.installInstanceId}
        AND attribution_status = 'pending' AND install_ref = ${from.installRef}
        AND init_link IS NOT DISTINCT FROM ${from.initLink} AND gaid IS NOT DISTINCT FROM ${from.gaid}
        AND idfa IS NOT DISTINCT FROM ${from.idfa} AND idfv IS NOT DISTINCT FROM ${from.idfv}
        AND android_id IS NOT DISTINCT FROM ${from.androidId}
      RETURNING 1)
    SELECT EXISTS (SELECT 1 FROM saved) AS saved,
      (SELECT attribution_status = 'pending' FROM installs
        WHERE project_id = ${from.projectId} AND install_instance_id = ${from.installInstanceId}) AS pending`;
  if (row?.saved) {
    return 'saved';
  }
  return row?.pending ? 'stale' : 'decided';
}

/**
 * A Play referrer for a pending install that has none (attribution-data's device_data.install_ref,
 * spec), with the time the Play download began when sent (unless the install has one): true when it
 * was taken. Without that time a late referrer never showed click injection.
 */
export async function setLateInstallRef(
  sql: Sql,
  projectId: string,
  installInstanceId: string,
  installRef: string,
  installBeginAt: Date | null,
): Promise<boolean> {
  const res = await sql`UPDATE installs SET install_ref = ${installRef},
      install_begin_at = COALESCE(install_begin_at, ${installBeginAt})
    WHERE project_id = ${projectId} AND install_instance_id = ${installInstanceId}
      AND attribution_status = 'pending' AND install_ref = ''`;
  return res.count === 1;
}

/**
 * The install's link signal: `link` unless it has one, or in place of `replacing` (a link that named
 * no campaign) while that is still the one it has.
 */
export async function setInitLink(
  sql: Sql,
  projectId: string,
  installInstanceId: string,
  link: string,
  replacing: string | null = null,
): Promise<void> {
  await sql`UPDATE installs SET init_link = ${link}
    WHERE project_id = ${projectId} AND install_instance_id = ${installInstanceId}
      AND (init_link IS NULL OR init_link = ${replacing})`;
}

/** The install's last re-engagement, with those before it still within the retry span (`prior`). */
export async function saveReengagement(
  sql: Sql,
  projectId: string,
  installInstanceId: string,
  r: { campaignId: number; at: Date; prior: Record<string, number> },
): Promise<void> {
  await sql`UPDATE installs SET reengaged_at = ${r.at}, reengagement_campaign_id = ${r.campaignId},
      last_seen_at = ${r.at}, prior_reengagements = ${sql.json(r.prior)}
    WHERE project_id = ${projectId} AND install_instance_id = ${installInstanceId}`;
}

/**
 * A user's install: the one it registered through (what attributed-users and revenue use), else
 * the newest tied to it; or the newest install of a device advertising id (gaid or idfa). By the
 * newest tied install alone, a user who logged out and another who logged in on the same device
 * made the first one's lookup answer 204, while attributed-users listed it under its campaign.
 */
export async function findInstallForLookup(
  sql: Sql,
  projectId: string,
  by: { userId?: string; adId?: string },
): Promise<InstallRecord | undefined> {
  if (by.userId !== undefined) {
    const [row] = await sql<Row[]>`
      (SELECT 0 AS pick, i.* FROM app_users u JOIN installs i
        ON i.project_id = u.project_id AND i.install_instance_id = u.install_instance_id
        WHERE u.project_id = ${projectId} AND u.user_id = ${by.userId})
      UNION ALL
      (SELECT 1 AS pick, * FROM installs WHERE project_id = ${projectId} AND user_id = ${by.userId}
        ORDER BY created_at DESC LIMIT 1)
      ORDER BY pick LIMIT 1`;
    return row ? toInstall(row) : undefined;
  }
  const id = (by.adId ?? '').toLowerCase();
  const [row] = await sql<
    Row[]
  >`SELECT * FROM installs WHERE project_id = ${projectId} AND (gaid = ${id} OR idfa = ${id})
    ORDER BY created_at DESC LIMIT 1`;
  return row ? toInstall(row) : undefined;
}

/** Installs still pending after `olderThanMs` (the reconciler re-enqueues them). */
export async function listPendingInstalls(sql: Sql, olderThanMs: number, limit: number) {
  return sql<{ project_id: string; install_instance_id: string }[]>`
    SELECT project_id, install_instance_id FROM installs
    WHERE attribution_status = 'pending' AND created_at < now() - make_interval(secs => ${olderThanMs / 1000})
    ORDER BY created_at LIMIT ${limit}`;
}

export type InstallAttribution = {
  installInstanceId: string;
  status: 'pending' | 'decided';
  createdAt: Date;
  campaignId: number;
  displayId: string;
  network: string;
  adSetId: string;
  adSetName: string;
  creativeId: string;
  creativeName: string;
  keywordId: string;
  keywordName: string;
  reengagedAt: Date | null;
  reengagementCampaignId: number;
};

/** The current attribution of several installs of one project (the fact writer's enrichment). */
export async function findInstallAttributions(
  sql: Sql,
  projectId: string,
  installIds: string[],
): Promise<Map<string, InstallAttribution>> {
  const rows = await sql<Row[]>`
    SELECT i.install_instance_id, i.attribution_status, i.created_at, i.campaign_id, c.display_id, i.network,
      i.ad_set_id, i.ad_set_name, i.creative_id, i.creative_name, i.keyword_id, i.keyword_name,
      i.reengaged_at, i.reengagement_campaign_id
    FROM installs i LEFT JOIN campaigns c ON c.id = i.campaign_id
    WHERE i.project_id = ${projectId} AND i.install_instance_id = ANY(${installIds}::text[])`;
  return new Map(
    rows.map((r) => [
      r.install_instance_id as string,
      {
        installInstanceId: r.install_instance_id as string,
        status: r.attribution_status as 'pending' | 'decided',
        createdAt: r.created_at as Date,
        campaignId: (r.campaign_id as number | null) ?? 0,
        displayId: (r.display_id as string | null) ?? '',
        network: (r.network as string | null) ?? '',
        adSetId: (r.ad_set_id as string | null) ?? '',
        adSetName: (r.ad_set_name as string | null) ?? '',
        creativeId: (r.creative_id as string | null) ?? '',
        creativeName: (r.creative_name as string | null) ?? '',
        keywordId: (r.keyword_id as string | null) ?? '',
        keywordName: (r.keyword_name as string | null) ?? '',
        reengagedAt: r.reengaged_at as Date | null,
        reengagementCampaignId: (r.reengagement_campaign_id as number | null) ?? 0,
      },
    ]),
  );
}

/**
 * Stores the install's push token and takes it from the project's other installs: the install that
 * sent it last owns it (an iOS reinstall keeps its APNs token under a new install id, and two
 * holders meant two pushes a day and one removal counted as two uninstalls). One statement;
 * undefined when the install is unknown, and then the others keep the token. pushStateSet: the
 * install is marked uninstalled or counting failed pushes (with the same token).
 */
export async function savePushToken(
  sql: Sql,
  projectId: string,
  installInstanceId: string,
  pushToken: string,
): Promise<{ pushStateSet: boolean } | undefined> {
  // A new token starts uninstall tracking's count of failed days afresh (the old token's failures
  // say nothing about the new one). md5(push_token) is what installs_by_push_token indexes (0021).
  const [r] = await sql`WITH saved AS (
      UPDATE installs SET push_token = ${pushToken}, push_token_updated_at = now(),
        push_failures = CASE WHEN push_token IS DISTINCT FROM ${pushToken} THEN 0 ELSE push_failures END
      WHERE project_id = ${projectId} AND install_instance_id = ${installInstanceId}
      RETURNING uninstalled_at IS NOT NULL OR push_failures > 0 AS push_state_set),
    taken AS (
      UPDATE installs SET push_token = NULL, push_token_updated_at = now(), push_failures = 0
      WHERE project_id = ${projectId} AND md5(push_token) = md5(${pushToken}) AND push_token = ${pushToken}
        AND install_instance_id <> ${installInstanceId} AND EXISTS (SELECT 1 FROM saved))
    SELECT push_state_set FROM saved`;
  return r ? { pushStateSet: r.push_state_set as boolean } : undefined;
}

/**
 * Merges string values into the install's integration_info unless the result would hold more than
 * `maxKeys` keys; false when nothing was written (unknown install, or too many keys).
 */
export async function mergeIntegrationInfo(
  sql: Sql,
  projectId: string,
  installInstanceId: string,
  info: Record<string, string>,
  maxKeys: number,
): Promise<boolean> {
  const res = await sql`UPDATE installs SET integration_info = integration_info || ${sql.json(info)}
    WHERE project_id = ${projectId} AND install_instance_id = ${installInstanceId}
      AND (SELECT count(*) FROM jsonb_object_keys(integration_info || ${sql.json(info)})) <= ${maxKeys}`;
  return res.count === 1;
}
