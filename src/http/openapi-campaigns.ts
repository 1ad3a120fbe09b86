// OpenAPI operations of the campaign routes: list, create, edit (PATCH and its PUT alias), delete,
// and edit / delete without a display id (registered so they answer the spec's 400). Create and
// edit document the zod schemas that parse them (http/parse/v1/campaigns.ts), with the name as
// the parsers check it once trimmed.
import { z } from 'zod';
import type { Operation } from './openapi.ts';
import {
  CRUD_401,
  campaignRowSchema,
  campaignSummarySchema,
  createdCampaignSchema,
  DATA_401,
  envelope,
  paginationSchema,
  v1Op,
} from './openapi-responses.ts';
import {
  campaignNameDocSchema,
  createCampaignBodySchema,
  displayIdParamsSchema,
  editCampaignBodySchema,
  listCampaignsQuerySchema,
} from './parse/v1/campaigns.ts';

const editBodySchema = editCampaignBodySchema
  .extend({ name: campaignNameDocSchema.optional() })
  .meta({ anyOf: [{ required: ['name'] }, { required: ['active'] }] });

const NO_DISPLAY_ID = '`Campaign display ID is required!` (always: the path names no campaign)';

const editOps = (['patch', 'put'] as const).flatMap((method): Operation[] => [
  v1Op(
    {
      method,
      path: '/api/v1/campaigns/{display_id}',
      summary: method === 'patch' ? 'Edit a campaign' : 'Edit a campaign (PUT alias of PATCH)',
      tag: 'campaigns',
      params: displayIdParamsSchema,
      body: editBodySchema,
      responses: {
        '200': { description: '`Campaign updated successfully!`', schema: envelope(campaignSummarySchema) },
        '400': 'missing display id, no field (name or active), blank name, non-boolean active',
        '404': '`Campaign not found!`',
      },
    },
    CRUD_401,
  ),
]);

/** PATCH / PUT / DELETE on /campaigns and /campaigns/: registered so they answer the spec's 400. */
const noIdOps = (['/api/v1/campaigns', '/api/v1/campaigns/'] as const).flatMap((path) =>
  (['patch', 'put', 'delete'] as const).map((method) =>
    v1Op(
      {
        method,
        path,
        summary: `${method.toUpperCase()} without a display id: answers 400 after the key check`,
        tag: 'campaigns',
        responses: { '400': NO_DISPLAY_ID },
      },
      CRUD_401,
    ),
  ),
);

export const CAMPAIGN_OPERATIONS: Operation[] = [
  v1Op(
    {
      method: 'get',
      path: '/api/v1/campaigns',
      summary: 'List campaigns',
      tag: 'campaigns',
      query: listCampaignsQuerySchema,
      responses: {
        '200': {
          description: '`Successfully retrieved <n> campaigns (<scope>). Showing page <p> of <pages>.`',
          schema: envelope(
            z.object({
              total_campaigns: z.int().min(0),
              campaigns: z.array(campaignRowSchema),
              pagination: paginationSchema,
            }),
          ),
        },
        '400': 'invalid filter, link, domain or channel, or a repeated parameter',
        '422': 'invalid page or limit',
      },
    },
    DATA_401,
  ),
  v1Op(
    {
      method: 'post',
      path: '/api/v1/create-campaign',
      summary: 'Create a campaign',
      tag: 'campaigns',
      body: createCampaignBodySchema.extend({ name: campaignNameDocSchema }),
      responses: {
        '201': { description: '`Campaign created successfully!`', schema: envelope(createdCampaignSchema) },
        '400': 'invalid field, reserved or taken display id, unknown domain or store listing',
      },
    },
    CRUD_401,
  ),
  ...editOps,
  v1Op(
    {
      method: 'delete',
      path: '/api/v1/campaigns/{display_id}',
      summary: 'Delete a campaign',
      tag: 'campaigns',
      params: displayIdParamsSchema,
      responses: {
        '204': 'deleted; empty body',
        '400': '`Campaign display ID is required!`',
        '404': '`Campaign not found!`',
      },
    },
    CRUD_401,
  ),
  ...noIdOps,
];
