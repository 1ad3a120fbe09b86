// Renames and/or (de)activates a campaign. Only name and active can change (no mass assignment).
import type { Deps } from '../../deps.ts';
import { ApiError } from '../../http/errors.ts';
import { MSG } from '../../http/messages.ts';
import { countAttributedUsers, findCampaignByDisplayId, updateCampaign } from '../../store/postgres/campaigns.ts';
import type { Project } from '../../store/postgres/projects.ts';
import type { Campaign } from './campaign.ts';

export type EditCampaignInput = { displayId: string; name?: string; active?: boolean };

export async function editCampaign(
  deps: Pick<Deps, 'sql'>,
  project: Project,
  input: EditCampaignInput,
): Promise<Campaign> {
  const changed = await updateCampaign(deps.sql, project.id, input.displayId, {
    name: input.name,
    active: input.active,
  });
  const campaign = changed ? await findCampaignByDisplayId(deps.sql, project.id, input.displayId) : undefined;
  if (!campaign) {
    throw new ApiError(404, MSG.campaignNotFound);
  }
  const users = await countAttributedUsers(deps.sql, project.id, [campaign.id]);
  return { ...campaign, storeListings: [], attributedUsers: users.get(campaign.id) ?? 0 };
}
