// Records one counted click as a `clicks` fact. Every column of the ClickHouse row is filled ('' for
// absent values). The row goes through the Postgres outbox: when append() resolves, the click is
// durable, so the redirect is sent only after it.
import type { Deps } from '../../deps.ts';
import { formatChTime, localDay } from '../../lib/time.ts';
import type { CampaignRecord } from '../../store/postgres/campaigns.ts';
import type { Project } from '../../store/postgres/projects.ts';
import type { ClassifiedAgent } from './classify-user-agent.ts';
import { type ClickParams, cleanText } from './read-click-params.ts';

export type Click = {
  clickId: string;
  project: Pick<Project, 'id' | 'timezone'>;
  campaign: Pick<CampaignRecord, 'id' | 'displayId' | 'network'>;
  at: Date;
  ip: string;
  userAgent: string;
  referrer: string;
  agent: ClassifiedAgent;
  params: ClickParams;
};

const MAX_HEADER_CHARS = 1024;

function clickRow(c: Click): Record<string, string | number> {
  const p = c.params;
  const a = c.agent;
  return {
    click_id: c.clickId,
    project_id: c.project.id,
    campaign_id: c.campaign.id,
    display_id: cleanText(c.campaign.displayId),
    ts: formatChTime(c.at.getTime()),
    project_tz: c.project.timezone,
    day: localDay(c.at.getTime(), c.project.timezone),
    ip: cleanText(c.ip),
    user_agent: cleanText(c.userAgent, MAX_HEADER_CHARS),
    platform: a.platform,
    os: cleanText(a.os),
    os_version: cleanText(a.osVersion),
    device_vendor: cleanText(a.deviceVendor),
    device_model: cleanText(a.deviceModel),
    browser: cleanText(a.browser),
    in_app_browser: a.inAppBrowser,
    network: cleanText(c.campaign.network ?? '') || p.network,
    ad_set_id: p.adSetId,
    ad_set_name: p.adSetName,
    creative_id: p.creativeId,
    creative_name: p.creativeName,
    keyword_id: p.keywordId,
    keyword_name: p.keywordName,
    gclid: p.gclid,
    gbraid: p.gbraid,
    wbraid: p.wbraid,
    fbclid: p.fbclid,
    ttclid: p.ttclid,
    utm_source: p.utm_source,
    utm_medium: p.utm_medium,
    utm_campaign: p.utm_campaign,
    utm_term: p.utm_term,
    utm_content: p.utm_content,
    ad_id: p.adId,
    referrer: cleanText(c.referrer, MAX_HEADER_CHARS),
    link_params: p.linkParams,
  };
}

export async function recordClick(deps: Pick<Deps, 'facts'>, c: Click): Promise<void> {
  await deps.facts.append([{ table: 'clicks', factId: c.clickId, projectId: c.project.id, row: clickRow(c) }]);
}
