// attribution-data: the install's attribution as apps parse it (real-clients §4.2). A final answer
// is cached 24 h (spec); a pending one never is, so polling converges. The deeplink is the
// campaign's with the winning link's own parameters appended (referral codes), so the cached
// answer carries them too. A cached campaign answer is served only while its campaign is live
// (live-campaigns.ts: cached per process, so a hit usually costs no statement).
import type { Deps } from '../../deps.ts';
import { ApiError } from '../../http/errors.ts';
import { MSG } from '../../http/messages.ts';
import { isoSeconds } from '../../lib/time.ts';
import { findCampaignById } from '../../store/postgres/campaigns.ts';
import { findInstall, type InstallRecord } from '../../store/postgres/installs.ts';
import { isCampaignLiveCached } from '../../store/postgres/live-campaigns.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { campaignDeeplink } from '../links/deeplink-params.ts';

export type CampaignData = {
  id: string;
  name: string;
  type: 'INORGANIC';
  ad_network: string | null;
  group_name: string | null;
  asset_group_name: string | null;
  asset_name: string | null;
  installed_at: string;
  store_click_at: string | null;
  ad_set_id: string | null;
  ad_set_name: string | null;
  ad_creative_id: string | null;
  ad_creative_name: string | null;
};

export type AttributionAnswer = {
  pending: boolean;
  data: { deeplink: string | null; campaign_data: CampaignData | null; attribution_source: string };
};

const DAY_SECONDS = 24 * 3600;
const orNull = (s: string | null | undefined): string | null => (s ? s : null);
export const attributionCacheKey = (projectId: string, installId: string) =>
  `attribution-data:${projectId}:${installId}`;

async function answerFor(
  deps: Pick<Deps, 'sql'>,
  project: Project,
  install: InstallRecord,
): Promise<AttributionAnswer> {
  if (install.attributionStatus === 'pending') {
    return { pending: true, data: { deeplink: null, campaign_data: null, attribution_source: 'PENDING' } };
  }
  const campaign = install.campaignId ? await findCampaignById(deps.sql, project.id, install.campaignId) : undefined;
  if (!campaign) {
    return { pending: false, data: { deeplink: null, campaign_data: null, attribution_source: 'ORGANIC' } };
  }
  return {
    pending: false,
    data: {
      deeplink: campaignDeeplink(campaign, install.linkParams),
      campaign_data: {
        id: campaign.displayId,
        name: campaign.name,
        type: 'INORGANIC',
        ad_network: orNull(install.network),
        group_name: orNull(install.adSetName),
        asset_group_name: null,
        asset_name: orNull(install.creativeName),
        installed_at: isoSeconds(install.createdAt),
        store_click_at: install.storeClickAt ? isoSeconds(install.storeClickAt) : null,
        ad_set_id: orNull(install.adSetId),
        ad_set_name: orNull(install.adSetName),
        ad_creative_id: orNull(install.creativeId),
        ad_creative_name: orNull(install.creativeName),
      },
      attribution_source: install.network || 'INORGANIC',
    },
  };
}

export async function readAttribution(
  deps: Pick<Deps, 'sql' | 'cache'>,
  project: Project,
  installInstanceId: string,
): Promise<AttributionAnswer> {
  const key = attributionCacheKey(project.id, installInstanceId);
  const cached = await deps.cache.get(key).catch(() => undefined);
  if (cached) {
    const data = JSON.parse(cached) as AttributionAnswer['data'];
    if (!data.campaign_data || (await isCampaignLiveCached(deps.sql, project.id, data.campaign_data.id))) {
      return { pending: false, data };
    }
    // Its campaign was deleted since: the install now answers organic (README), answered afresh.
    await deps.cache.del(key).catch(() => undefined);
  }
  const install = await findInstall(deps.sql, project.id, installInstanceId);
  if (!install) {
    throw new ApiError(400, MSG.installNotFound);
  }
  const answer = await answerFor(deps, project, install);
  if (!answer.pending) {
    await deps.cache.set(key, JSON.stringify(answer.data), DAY_SECONDS).catch(() => undefined);
    // A GDPR deletion (domain/users/delete-user.ts) may have deleted the install since it was read,
    // and cleared the cache before this write: read again (misses only), and drop the entry if it
    // is gone. A deletion committing after this read clears the cache after it, itself.
    if (!(await findInstall(deps.sql, project.id, installInstanceId))) {
      await deps.cache.del(key).catch(() => undefined);
    }
  }
  return answer;
}
