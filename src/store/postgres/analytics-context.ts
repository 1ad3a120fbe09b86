// What an analytics delivery says about a user: the user's stored user_data (the vendors' ids), the
// integration_info of the install that registered them (app_users.install_instance_id: CleverTap's
// clevertap_id, stored by /api/client/integrations) and that install's attribution. Read in the
// transaction that queues the delivery, or that releases it once the install is decided.
import type { Sql } from './pool.ts';

export type AnalyticsUser = {
  userId: string;
  /** The install that registered the user: its attribution is the user's. */
  installInstanceId: string;
  userData: Record<string, unknown>;
  /** The registering install's integration_info ({} when it has none). */
  integrationInfo: Record<string, unknown>;
};

export type InstallAttribution = {
  installInstanceId: string;
  /** 'pending' while the install is being attributed: the properties are not known yet. */
  status: 'pending' | 'decided';
  campaignDisplayId: string | null;
  campaignName: string | null;
  network: string | null;
  adSetName: string | null;
  adSetId: string | null;
  creativeName: string | null;
  creativeId: string | null;
  keywordName: string | null;
  keywordId: string | null;
  attributedAt: Date | null;
  installedAt: Date | null;
};

export async function findAnalyticsUser(
  sql: Sql,
  projectId: string,
  userId: string,
): Promise<AnalyticsUser | undefined> {
  const [row] = await sql<
    {
      install_instance_id: string;
      user_data: Record<string, unknown> | null;
      integration_info: Record<string, unknown> | null;
    }[]
  >`
    SELECT u.install_instance_id, u.user_data, i.integration_info
    FROM app_users u
    LEFT JOIN installs i ON i.project_id = u.project_id AND i.install_instance_id = u.install_instance_id
    WHERE u.project_id = ${projectId} AND u.user_id = ${userId}`;
  if (!row) {
    return undefined;
  }
  return {
    userId,
    installInstanceId: row.install_instance_id,
    userData: row.user_data ?? {},
    integrationInfo: row.integration_info ?? {},
  };
}

type Row = {
  attribution_status: 'pending' | 'decided';
  display_id: string | null;
  campaign_name: string | null;
  network: string | null;
  ad_set_id: string | null;
  ad_set_name: string | null;
  creative_id: string | null;
  creative_name: string | null;
  keyword_id: string | null;
  keyword_name: string | null;
  attributed_at: Date | null;
  created_at: Date | null;
};

export async function findInstallAttribution(
  sql: Sql,
  projectId: string,
  installInstanceId: string,
): Promise<InstallAttribution | undefined> {
  const [r] = await sql<Row[]>`
    SELECT i.attribution_status, c.display_id, c.name AS campaign_name, i.network, i.ad_set_id, i.ad_set_name,
      i.creative_id, i.creative_name, i.keyword_id, i.keyword_name, i.attributed_at, i.created_at
    FROM installs i LEFT JOIN campaigns c ON c.id = i.campaign_id
    WHERE i.project_id = ${projectId} AND i.install_instance_id = ${installInstanceId}`;
  if (!r) {
    return undefined;
  }
  return {
    installInstanceId,
    status: r.attribution_status,
    campaignDisplayId: r.display_id,
    campaignName: r.campaign_name,
    network: r.network,
    adSetId: r.ad_set_id,
    adSetName: r.ad_set_name,
    creativeId: r.creative_id,
    creativeName: r.creative_name,
    keywordId: r.keyword_id,
    keywordName: r.keyword_name,
    attributedAt: r.attributed_at,
    installedAt: r.created_at,
  };
}
