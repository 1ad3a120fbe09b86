// Lists a project's campaigns with the spec's filters: status, channel (built-in networks or an
// affiliate code), domain, and a campaign link in either form (?c=<id> or /<id>).
import type { Deps } from '../../deps.ts';
import { ApiError } from '../../http/errors.ts';
import { MSG } from '../../http/messages.ts';
import { pageOffset } from '../../lib/page-offset.ts';
import {
  type CampaignFilter,
  countAttributedUsers,
  listCampaigns,
  listNetworkCodes,
} from '../../store/postgres/campaigns.ts';
import { findDomainByName } from '../../store/postgres/domains.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { listingsOfCampaigns } from '../../store/postgres/store-listings.ts';
import { type Campaign, KNOWN_NETWORKS, normalizeNetworkCode } from './campaign.ts';
import { campaignFromLink } from './parse-link.ts';

export type CampaignStatusFilter = 'ACTIVE' | 'INACTIVE' | 'ALL';

export type ListCampaignsInput = {
  filter: CampaignStatusFilter;
  channel?: string;
  domain?: string;
  link?: string;
  page: number;
  limit: number;
};

export type CampaignPage = { total: number; page: number; limit: number; pages: number; campaigns: Campaign[] };

async function channelFilter(deps: Pick<Deps, 'sql'>, projectId: string, channel: string): Promise<CampaignFilter> {
  const code = normalizeNetworkCode(channel);
  if (code === '') {
    return {};
  }
  if (code === 'GOOGLE') {
    return { google: true };
  }
  if (code === 'META') {
    return { meta: true };
  }
  if ((KNOWN_NETWORKS as readonly string[]).includes(code) || (await listNetworkCodes(deps.sql, projectId)).has(code)) {
    return { network: code };
  }
  throw new ApiError(400, MSG.invalidChannel(channel));
}

export async function listProjectCampaigns(
  deps: Pick<Deps, 'sql' | 'config'>,
  project: Project,
  input: ListCampaignsInput,
): Promise<CampaignPage> {
  const filter: CampaignFilter = {};
  if (input.filter !== 'ALL') {
    filter.active = input.filter === 'ACTIVE';
  }
  if (input.channel !== undefined) {
    Object.assign(filter, await channelFilter(deps, project.id, input.channel));
  }
  if (input.domain !== undefined) {
    const domain = await findDomainByName(deps.sql, project.id, input.domain);
    if (!domain) {
      throw new ApiError(400, MSG.invalidDomain(input.domain));
    }
    filter.domainId = domain.id;
  }
  if (input.link !== undefined) {
    // The 400 is for the link alone (invalid, unknown domain, no such campaign: spec); a campaign
    // that exists but is left out by the other filters is an empty page, as any filter gives.
    const campaign = await campaignFromLink(deps, project.id, input.link);
    if (!campaign) {
      throw new ApiError(400, MSG.invalidRequestParameters);
    }
    filter.displayId = campaign.displayId;
  }
  const offset = pageOffset(input.page, input.limit);
  const { total, rows } = await listCampaigns(deps.sql, project.id, filter, { offset, limit: input.limit });
  const ids = rows.map((r) => r.id);
  const [listings, users] = await Promise.all([
    listingsOfCampaigns(deps.sql, ids),
    countAttributedUsers(deps.sql, project.id, ids),
  ]);
  const campaigns = rows.map((r) => ({
    ...r,
    storeListings: listings.get(r.id) ?? [],
    attributedUsers: users.get(r.id) ?? 0,
  }));
  return { total, page: input.page, limit: input.limit, pages: Math.ceil(total / input.limit), campaigns };
}
