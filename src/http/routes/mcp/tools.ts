// The MCP server's tools (product-notes "MCP"): read-only, each scoped to the project its token
// belongs to, each answering what the matching HTTP API answers (list_campaigns is GET
// /api/v1/campaigns's data, lookup_attribution GET /api/v1/get-attribution-result's; the stats are
// the sums of GET /api/v1/reporting/campaigns's rows). Reporting tools answer 402 while billing is
// suspended, as reporting does.
import { z } from 'zod';
import type { Deps } from '../../../deps.ts';
import { getAttributionResult } from '../../../domain/attribution/get-attribution-result.ts';
import { listProjectCampaigns } from '../../../domain/campaigns/list-campaigns.ts';
import { readAttribution } from '../../../domain/identity/read-attribution.ts';
import { countEvents } from '../../../domain/mcp/count-events.ts';
import { getBillingUsage } from '../../../domain/mcp/get-billing-usage.ts';
import { getProjectInfo } from '../../../domain/mcp/get-project-info.ts';
import { getProjectStats } from '../../../domain/mcp/get-project-stats.ts';
import { storable } from '../../../lib/storable.ts';
import { charLength } from '../../../lib/validate.ts';
import type { Project } from '../../../store/postgres/projects.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { readInstallId } from '../../parse/client/common.ts';
import { parseListCampaigns } from '../../parse/v1/campaigns.ts';
import { presentCampaign } from '../../present/campaign.ts';
import { presentBillingUsage, presentEventCounts, presentProjectInfo, presentProjectStats } from './present.ts';
import {
  argumentTypes,
  asQuery,
  billingSchema,
  type CallArgs,
  listCampaignsSchema,
  lookupSchema,
  noArguments,
  parseBillingPeriod,
  parseWindow,
  windowSchema,
} from './tool-inputs.ts';

export type ToolContext = { deps: Deps; project: Project };

export type Tool = {
  name: string;
  title: string;
  description: string;
  /** Published as inputSchema (tools/list). */
  input: z.ZodObject;
  /** What a call's arguments are checked with before run: input's keys and types only. */
  check: z.ZodObject;
  run: (ctx: ToolContext, args: unknown) => Promise<Record<string, unknown>>;
};

function tool<S extends z.ZodObject>(t: {
  name: string;
  title: string;
  description: string;
  input: S;
  run: (ctx: ToolContext, args: CallArgs<S>) => Promise<Record<string, unknown>>;
}): Tool {
  return { ...t, check: argumentTypes(t.input), run: (ctx, args) => t.run(ctx, args as CallArgs<S>) };
}

function requireBilling(project: Project): void {
  if (project.billingSuspended) {
    throw new ApiError(402, MSG.billingSuspended, { payment_link: project.paymentLink });
  }
}

const SCOPE = { ALL: 'all campaigns', ACTIVE: 'active campaigns', INACTIVE: 'inactive campaigns' } as const;

/**
 * user_id / device_identifier as GET /api/v1/get-attribution-result reads them: trimmed, and one
 * that is blank, longer than 256 characters or holds NUL (Postgres text cannot: it was a 500) is
 * not given.
 */
const lookupId = (v: string | undefined): string | undefined => {
  const t = v?.trim();
  return t && charLength(t) <= 256 && !t.includes('\u0000') ? t : undefined;
};

/** install_instance_id as attribution-data reads it (NUL dropped, a UUID lower-cased); blank is not given. */
const lookupInstallId = (v: string | undefined): string | undefined =>
  v === undefined || storable(v.trim()) === '' ? undefined : readInstallId({ install_instance_id: v });

async function lookup({ deps, project }: ToolContext, args: CallArgs<typeof lookupSchema>) {
  const userId = lookupId(args.user_id);
  const deviceIdentifier = lookupId(args.device_identifier);
  if (userId || deviceIdentifier) {
    const result = await getAttributionResult(deps, project, { userId, deviceIdentifier });
    return { found: result !== undefined, attribution: result ?? null };
  }
  const installId = lookupInstallId(args.install_instance_id);
  if (!installId) {
    throw new ApiError(400, MSG.mcpLookupRequired);
  }
  try {
    const answer = await readAttribution(deps, project, installId);
    return { found: true, pending: answer.pending, attribution: answer.data };
  } catch (err) {
    if (err instanceof ApiError && err.msg === MSG.installNotFound) {
      return { found: false, attribution: null };
    }
    throw err;
  }
}

export const TOOLS: Tool[] = [
  tool({
    name: 'get_project_info',
    title: 'Project info',
    description:
      'The project this MCP token belongs to: id, name, time zone (report days are local to it), display currency, website, platforms and store listings, link domains, and whether billing is suspended. No keys or tokens.',
    input: noArguments,
    run: async ({ deps, project }) => presentProjectInfo(await getProjectInfo(deps, project)),
  }),
  tool({
    name: 'get_project_stats',
    title: 'Project totals',
    description:
      "Totals for a window of project-local days: clicks, installs, reinstalls, re-engagements, sign-ups, uninstalls, suspicious installs, revenue events, revenue and ad spend, split into attributed (the sum of the campaign report's rows: live campaigns), organic, and total. Money is decimal text in the project's display currency. Omit from/to for all time.",
    input: windowSchema,
    run: async ({ deps, project }, args) => {
      requireBilling(project);
      const window = parseWindow(args);
      return presentProjectStats(project, await getProjectStats(deps, project, window));
    },
  }),
  tool({
    name: 'list_campaigns',
    title: 'Campaigns',
    description:
      'A page of the project campaigns, exactly as GET /api/v1/campaigns answers: display id, name, status, links, domain, store listings and attributed users, with pagination.',
    input: listCampaignsSchema,
    run: async ({ deps, project }, args) => {
      const input = parseListCampaigns(asQuery(args));
      const page = await listProjectCampaigns(deps, project, input);
      return {
        msg: MSG.campaignsListed(page.total, SCOPE[input.filter], page.page, page.pages),
        total_campaigns: page.total,
        campaigns: page.campaigns.map((c) => presentCampaign(c, deps.config.publicUrl)),
        pagination: { total: page.total, pages: page.pages, page: page.page, limit: page.limit },
      };
    },
  }),
  tool({
    name: 'list_events',
    title: 'Custom events',
    description:
      'The custom event names the project has recorded (the first 500 by name), each with its count and amount in a window of project-local days, attributed (live campaigns) and organic. Omit from/to for all time.',
    input: windowSchema,
    run: async ({ deps, project }, args) => {
      requireBilling(project);
      const window = parseWindow(args);
      return presentEventCounts(project, await countEvents(deps, project, window));
    },
  }),
  tool({
    name: 'lookup_attribution',
    title: 'Attribution of a user or install',
    description:
      "How a user or install was attributed. By user_id or device_identifier: what GET /api/v1/get-attribution-result answers (user_id wins; found false when nothing is decided). By install_instance_id: what the SDK's attribution-data answers (pending while undecided).",
    input: lookupSchema,
    run: lookup,
  }),
  tool({
    name: 'get_billing_usage',
    title: 'Billing usage',
    description:
      'Billable installs of a month (default the current one) or a period: attributed installs are billable, organic ones free; the first 25,000 attributed installs are free (one-time pool), then $0.01 per install. Also whether billing is suspended, with the payment link.',
    input: billingSchema,
    run: async ({ deps, project }, args) => {
      const period = parseBillingPeriod(args, deps.now(), project.timezone);
      const usage = await getBillingUsage(deps, project, period);
      return presentBillingUsage(project, usage, period.month);
    },
  }),
];

/** JSON Schema of a tool's arguments (draft 2020-12, MCP's default dialect, so no $schema). */
function inputSchema(s: z.ZodObject): Record<string, unknown> {
  const { $schema: _dialect, ...json } = z.toJSONSchema(s, { io: 'input' }) as Record<string, unknown>;
  return json;
}

/** What tools/list answers: computed once, the tools never change while the process runs. */
export const TOOL_LIST = TOOLS.map((t) => ({
  name: t.name,
  title: t.title,
  description: t.description,
  inputSchema: inputSchema(t.input),
  annotations: {
    title: t.title,
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
}));
