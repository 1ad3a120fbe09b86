// Deletes a campaign: it leaves every listing and report; its display id stays reserved, for every
// project (create-campaign).
import type { Deps } from '../../deps.ts';
import { ApiError } from '../../http/errors.ts';
import { MSG } from '../../http/messages.ts';
import { softDeleteCampaign } from '../../store/postgres/campaigns.ts';
import type { Project } from '../../store/postgres/projects.ts';

export async function deleteCampaign(deps: Pick<Deps, 'sql'>, project: Project, displayId: string): Promise<void> {
  if (!(await softDeleteCampaign(deps.sql, project.id, displayId))) {
    throw new ApiError(404, MSG.campaignNotFound);
  }
}
