// What an outgoing delivery says about a user and their install: read inside the transaction that
// queues the delivery, so it matches the fact being delivered.
import type { Sql } from './pool.ts';

export type DeliveryContext = {
  installInstanceId: string;
  platform: string;
  /** 'pending' while the install is being attributed: its campaign fields are not known yet. */
  attributionStatus: 'pending' | 'decided';
  ip: string;
  userAgent: string;
  appVersion: string;
  osVersion: string;
  deviceModel: string;
  gaid: string | null;
  idfa: string | null;
  installedAt: Date | null;
  attributedAt: Date | null;
  storeClickAt: Date | null;
  link: string | null;
  network: string | null;
  adSetId: string | null;
  adSetName: string | null;
  creativeId: string | null;
  creativeName: string | null;
  /** The winning touch's network details (store/postgres/installs.ts saveInstallDecision). */
  networkDetails: Record<string, string | boolean>;
  campaignDisplayId: string | null;
  campaignName: string | null;
  userId: string | null;
  name: string | null;
  email: string | null;
  phone: string | null;
  deviceData: Record<string, unknown>;
};

type Row = {
  install_instance_id: string;
  platform: string;
  attribution_status: 'pending' | 'decided';
  ip: string;
  user_agent: string;
  app_version: string;
  os_version: string;
  device_model: string;
  gaid: string | null;
  idfa: string | null;
  created_at: Date | null;
  attributed_at: Date | null;
  store_click_at: Date | null;
  init_link: string | null;
  network: string | null;
  ad_set_id: string | null;
  ad_set_name: string | null;
  creative_id: string | null;
  creative_name: string | null;
  network_details: Record<string, string | boolean> | null;
  display_id: string | null;
  campaign_name: string | null;
  user_id: string | null;
  name: string | null;
  email: string | null;
  phone: string | null;
  device_data: Record<string, unknown> | null;
};

export async function findDeliveryContext(
  sql: Sql,
  projectId: string,
  installInstanceId: string,
  userId: string | null,
): Promise<DeliveryContext | undefined> {
  const rows = await sql<Row[]>`
    SELECT i.install_instance_id, i.platform, i.attribution_status, i.ip, i.user_agent, i.app_version, i.os_version,
      i.device_model, i.gaid, i.idfa, i.created_at, i.attributed_at, i.store_click_at, i.init_link, i.network,
      i.ad_set_id, i.ad_set_name, i.creative_id, i.creative_name, i.network_details, c.display_id, c.name AS campaign_name,
      u.user_id, u.name, u.email, u.phone, COALESCE(u.device_data, i.device_data) AS device_data
    FROM installs i
    LEFT JOIN campaigns c ON c.id = i.campaign_id
    LEFT JOIN app_users u ON u.project_id = i.project_id AND u.user_id = ${userId}
    WHERE i.project_id = ${projectId} AND i.install_instance_id = ${installInstanceId}`;
  const r = rows[0];
  if (!r) {
    return undefined;
  }
  return {
    installInstanceId: r.install_instance_id,
    platform: r.platform,
    attributionStatus: r.attribution_status,
    ip: r.ip,
    userAgent: r.user_agent,
    appVersion: r.app_version,
    osVersion: r.os_version,
    deviceModel: r.device_model,
    gaid: r.gaid,
    idfa: r.idfa,
    installedAt: r.created_at,
    attributedAt: r.attributed_at,
    storeClickAt: r.store_click_at,
    link: r.init_link,
    network: r.network,
    adSetId: r.ad_set_id,
    adSetName: r.ad_set_name,
    creativeId: r.creative_id,
    creativeName: r.creative_name,
    networkDetails: r.network_details ?? {},
    campaignDisplayId: r.display_id,
    campaignName: r.campaign_name,
    userId: r.user_id,
    name: r.name,
    email: r.email,
    phone: r.phone,
    deviceData: r.device_data ?? {},
  };
}
