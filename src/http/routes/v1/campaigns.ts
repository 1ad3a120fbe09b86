// Campaign endpoints: list (data family), create / edit / delete (campaign family).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { createCampaign } from '../../../domain/campaigns/create-campaign.ts';
import { deleteCampaign } from '../../../domain/campaigns/delete-campaign.ts';
import { editCampaign } from '../../../domain/campaigns/edit-campaign.ts';
import { listProjectCampaigns } from '../../../domain/campaigns/list-campaigns.ts';
import { CRUD_AUTH, DATA_AUTH, projectOf, serviceKey } from '../../auth/service-key.ts';
import { MSG } from '../../messages.ts';
import {
  parseCreateCampaign,
  parseDisplayId,
  parseEditCampaign,
  parseListCampaigns,
} from '../../parse/v1/campaigns.ts';
import { presentCampaign, presentCampaignSummary, presentCreatedCampaign } from '../../present/campaign.ts';
import { ok } from '../../reply.ts';

const SCOPE = { ALL: 'all campaigns', ACTIVE: 'active campaigns', INACTIVE: 'inactive campaigns' } as const;

export function registerCampaignRoutes(app: FastifyInstance, deps: Deps): void {
  const dataAuth = serviceKey(deps, DATA_AUTH, 'data');
  const crudAuth = serviceKey(deps, CRUD_AUTH, 'campaign');

  app.get('/campaigns', { preHandler: dataAuth }, async (req, reply) => {
    const input = parseListCampaigns(req.query);
    const page = await listProjectCampaigns(deps, projectOf(req), input);
    return ok(reply, 200, MSG.campaignsListed(page.total, SCOPE[input.filter], page.page, page.pages), {
      total_campaigns: page.total,
      campaigns: page.campaigns.map((c) => presentCampaign(c, deps.config.publicUrl)),
      pagination: { total: page.total, pages: page.pages, page: page.page, limit: page.limit },
    });
  });

  app.post('/create-campaign', { preHandler: crudAuth }, async (req, reply) => {
    const input = parseCreateCampaign(req.body);
    const campaign = await createCampaign(deps, projectOf(req), input);
    return ok(reply, 201, MSG.campaignCreated, presentCreatedCampaign(campaign, deps.config.publicUrl));
  });

  const edit = async (req: FastifyRequest, reply: FastifyReply) => {
    const input = parseEditCampaign(req.params, req.body);
    const campaign = await editCampaign(deps, projectOf(req), input);
    return ok(reply, 200, MSG.campaignUpdated, presentCampaignSummary(campaign));
  };
  // spec: PATCH is the method; the reference's code sample uses PUT, so both are served.
  for (const path of ['/campaigns/:display_id', '/campaigns/', '/campaigns']) {
    app.patch(path, { preHandler: crudAuth }, edit);
    app.put(path, { preHandler: crudAuth }, edit);
  }

  const remove = async (req: FastifyRequest, reply: FastifyReply) => {
    const displayId = parseDisplayId(req.params);
    await deleteCampaign(deps, projectOf(req), displayId);
    return reply.code(204).send();
  };
  for (const path of ['/campaigns/:display_id', '/campaigns/', '/campaigns']) {
    app.delete(path, { preHandler: crudAuth }, remove);
  }
}
