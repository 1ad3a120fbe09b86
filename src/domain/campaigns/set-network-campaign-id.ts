// Maps one of our campaigns to its campaign on the ad network (Apple Search Ads campaignId, Meta
// campaign_id), so an install the network claims (network resolvers) is attributed to it. Operator
// command: the public create-campaign API has no field for it. One network id maps to one campaign.
import type { PgDeps } from '../../deps.ts';
import { findCampaignByDisplayId } from '../../store/postgres/campaigns.ts';
import {
  findCampaignByNetworkCampaignId,
  type NetworkCampaign,
  updateNetworkCampaignId,
} from '../../store/postgres/network-campaigns.ts';
import { InputError } from '../projects/input-error.ts';
import { requireProject } from '../projects/require-project.ts';

/** Networks whose resolvers read network_campaign_id (the CLI warns about any other). */
export const RESOLVED_NETWORKS = ['APPLE_SEARCH_ADS', 'META'];

const NETWORK_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

export async function setNetworkCampaignId(
  deps: Pick<PgDeps, 'sql'>,
  projectId: string,
  input: { displayId: string; networkCampaignId: string },
): Promise<NetworkCampaign> {
  await requireProject(deps, projectId);
  const id = input.networkCampaignId.trim();
  if (!NETWORK_ID.test(id)) {
    throw new InputError(
      `--network-campaign-id '${input.networkCampaignId}' must be 1-128 letters, digits, '_', '-', '.' or ':'`,
    );
  }
  const displayId = input.displayId.trim();
  const campaign = await findCampaignByDisplayId(deps.sql, projectId, displayId);
  if (!campaign) {
    throw new InputError(`campaign '${displayId}' not found in project '${projectId}'`);
  }
  if (!campaign.network) {
    throw new InputError(
      `campaign '${displayId}' has no ad network; only campaigns created with ad_network (e.g. APPLE_SEARCH_ADS, META) can be mapped`,
    );
  }
  const taken = await findCampaignByNetworkCampaignId(deps.sql, projectId, campaign.network, id);
  if (taken && taken.id !== campaign.id) {
    throw new InputError(`${campaign.network} campaign '${id}' is already mapped to campaign '${taken.displayId}'`);
  }
  const updated = await updateNetworkCampaignId(deps.sql, projectId, displayId, id);
  if (!updated) {
    throw new InputError(`campaign '${displayId}' not found in project '${projectId}'`);
  }
  return updated;
}
