// The CLI's command table: what each command takes, and how its result prints (text or --json).
import type { PgDeps } from '../deps.ts';
import { RESOLVED_NETWORKS, setNetworkCampaignId } from '../domain/campaigns/set-network-campaign-id.ts';
import { createProject } from '../domain/projects/create-project.ts';
import { rotateServerKey } from '../domain/projects/rotate-server-key.ts';
import { setAttributionSettings } from '../domain/projects/set-attribution-settings.ts';
import { setBilling } from '../domain/projects/set-billing.ts';
import { setMetaReferrerKey } from '../domain/projects/set-meta-referrer-key.ts';
import { setSigningEnforcement } from '../domain/projects/set-signing-enforcement.ts';
import { setWellKnown } from '../domain/projects/set-well-known.ts';
import { escapeControlChars } from '../lib/control-chars.ts';
import { listProjects, type Project } from '../store/postgres/projects.ts';
import { ANALYTICS_COMMANDS } from './analytics-commands.ts';
import { AUDIENCE_COMMANDS } from './audience-commands.ts';
import { opt, PROJECT, str, wholeNumberFlag } from './command-kit.ts';
import { DELIVERY_COMMANDS } from './delivery-commands.ts';
import { FACT_COMMANDS } from './fact-commands.ts';
import type { FlagSpec, Flags } from './flags.ts';
import { MCP_COMMANDS } from './mcp-commands.ts';
import { SETUP_COMMANDS } from './setup-commands.ts';
import { SKAN_COMMANDS } from './skan-commands.ts';
import { SPEND_COMMANDS } from './spend-commands.ts';
import { table } from './table.ts';
import { UNINSTALL_COMMANDS } from './uninstall-commands.ts';

/** `warning` goes to stderr, with --json too (a list cut at its limit): stdout stays the result. */
export type CommandResult = { json: unknown; text: string; warning?: string };
export type CommandSpec = {
  path: string[];
  summary: string;
  needs: 'postgres' | 'all';
  flags: FlagSpec;
  run: (deps: PgDeps, flags: Flags, progress: (line: string) => void) => Promise<CommandResult>;
};

const projectJson = (p: Project) => ({
  id: p.id,
  name: p.name,
  timezone: p.timezone,
  currency: p.displayCurrency,
  token: p.token,
  website: p.website,
  created_at: p.createdAt.toISOString(),
});
export const COMMANDS: CommandSpec[] = [
  {
    path: ['migrate'],
    summary: 'apply pending Postgres and ClickHouse migrations (stop an embedded-mode server first)',
    needs: 'all',
    flags: {},
    run: async () => ({ json: { ok: true }, text: 'migrations applied' }),
  },
  {
    path: ['projects', 'create'],
    summary: 'create a project; prints its token and server key (shown once)',
    needs: 'postgres',
    flags: {
      name: { type: 'string', required: true, description: 'project name' },
      timezone: { type: 'string', description: 'IANA zone for report days (default UTC)' },
      currency: { type: 'string', description: 'ISO 4217 display currency (default USD)' },
      website: { type: 'string', description: 'fallback redirect URL for links' },
    },
    run: async (deps, f) => {
      const { project, serverKey } = await createProject(deps, {
        name: str(f, 'name'),
        timezone: opt(f, 'timezone'),
        currency: opt(f, 'currency'),
        website: opt(f, 'website'),
      });
      return {
        json: { ...projectJson(project), server_key: serverKey },
        text: `project ${project.id} (${escapeControlChars(project.name)})\n  token:      ${project.token}\n  server key: ${serverKey}\n  (the server key is shown only now; keep it secret)`,
      };
    },
  },
  {
    path: ['projects', 'list'],
    summary: 'list projects',
    needs: 'postgres',
    flags: {},
    run: async (deps) => {
      const projects = await listProjects(deps.sql);
      return {
        json: projects.map(projectJson),
        text: table(
          ['id', 'name', 'timezone', 'currency', 'token'],
          projects.map((p) => [p.id, p.name, p.timezone, p.displayCurrency, p.token]),
        ),
      };
    },
  },
  {
    path: ['projects', 'rotate-key'],
    summary: 'issue a new server key; every earlier key stops working',
    needs: 'postgres',
    flags: PROJECT,
    run: async (deps, f) => {
      const { serverKey, revoked } = await rotateServerKey(deps, str(f, 'project'));
      return {
        json: { project_id: str(f, 'project'), server_key: serverKey, revoked_keys: revoked },
        text: `new server key: ${serverKey}\n(${revoked} earlier key(s) revoked; the new key is shown only now)`,
      };
    },
  },
  {
    path: ['projects', 'set-well-known'],
    summary: "store the AASA and/or assetlinks.json served at /.well-known/ on the project's link domains",
    needs: 'postgres',
    flags: {
      ...PROJECT,
      'aasa-file': { type: 'string', description: 'apple-app-site-association JSON file (an object)' },
      'assetlinks-file': { type: 'string', description: 'assetlinks.json file (an array)' },
    },
    run: async (deps, f) => {
      const files = await setWellKnown(deps, str(f, 'project'), {
        aasaFile: opt(f, 'aasa-file'),
        assetlinksFile: opt(f, 'assetlinks-file'),
      });
      const set = (v: unknown) => (v === null || v === undefined ? 'not set' : 'set');
      return {
        json: {
          project_id: str(f, 'project'),
          apple_app_site_association: files.appleAppSiteAssociation ?? null,
          assetlinks: files.assetlinks ?? null,
        },
        text: `well-known files: apple-app-site-association ${set(files.appleAppSiteAssociation)}, assetlinks.json ${set(files.assetlinks)}`,
      };
    },
  },
  {
    path: ['projects', 'set-signing'],
    summary: 'require (true) or stop requiring (false) signed SDK requests; bad signatures are refused either way',
    needs: 'postgres',
    flags: { ...PROJECT, enforce: { type: 'string', required: true, description: 'true or false' } },
    run: async (deps, f) => {
      const { enforce, activeKeys } = await setSigningEnforcement(deps, str(f, 'project'), {
        enforce: str(f, 'enforce'),
      });
      return {
        json: { project_id: str(f, 'project'), enforce_sdk_signing: enforce, active_keys: activeKeys },
        text: `SDK signing ${enforce ? 'enforced' : 'not enforced'} (${activeKeys} active key(s))`,
        warning:
          enforce && activeKeys === 0
            ? 'no active signing key; every SDK request is refused (see: signing-keys create)'
            : undefined,
      };
    },
  },
  {
    path: ['projects', 'set-meta-referrer-key'],
    summary: "store the app's Meta Install Referrer Decryption Key (encrypted with SECRETS_KEY; never printed)",
    needs: 'postgres',
    flags: { ...PROJECT, key: { type: 'string', required: true, description: '64 hex characters, from Meta' } },
    run: async (deps, f) => {
      const { fingerprint } = await setMetaReferrerKey(deps, str(f, 'project'), { key: str(f, 'key') });
      return {
        json: { project_id: str(f, 'project'), meta_referrer_key_set: true, key_fingerprint: fingerprint },
        text: `Meta install referrer key stored encrypted (fingerprint ${fingerprint})`,
      };
    },
  },
  {
    path: ['campaigns', 'set-network-id'],
    summary: 'map a campaign to its campaign id on its ad network (Apple Search Ads campaignId, Meta campaign_id)',
    needs: 'postgres',
    flags: {
      ...PROJECT,
      'display-id': { type: 'string', required: true, description: 'our campaign display id' },
      'network-campaign-id': { type: 'string', required: true, description: "the network's campaign id" },
    },
    run: async (deps, f) => {
      const c = await setNetworkCampaignId(deps, str(f, 'project'), {
        displayId: str(f, 'display-id'),
        networkCampaignId: str(f, 'network-campaign-id'),
      });
      const unused = c.network && !RESOLVED_NETWORKS.includes(c.network);
      return {
        json: { display_id: c.displayId, network: c.network, network_campaign_id: c.networkCampaignId },
        text: `campaign ${escapeControlChars(c.displayId)} (${c.network}) mapped to network campaign ${c.networkCampaignId}`,
        warning: unused ? `no resolver reads ${c.network} ids yet; only ${RESOLVED_NETWORKS.join(', ')}` : undefined,
      };
    },
  },
];

COMMANDS.push({
  path: ['projects', 'set-attribution'],
  summary: 'change attribution windows and methods (industry defaults until changed)',
  needs: 'postgres',
  flags: {
    ...PROJECT,
    'click-lookback-hours': { type: 'string', description: 'click lookback (default 168 = 7 days)' },
    'fingerprint-window-hours': { type: 'string', description: 'probabilistic window (default 24; 0 disables)' },
    'reattribution-window-days': { type: 'string', description: 're-engagement attribution window (default 90)' },
    'reengagement-inactivity-days': {
      type: 'string',
      description: 'inactivity before a re-engagement counts (default 0)',
    },
    'suspicious-ctit-seconds': {
      type: 'string',
      description: 'click-to-install below this is suspicious (default 10)',
    },
    enable: {
      type: 'string',
      description: 'comma list of methods to enable: play_referrer,link,ad_id,fingerprint,network_resolvers',
    },
    disable: { type: 'string', description: 'comma list of methods to disable' },
  },
  run: async (deps, f) => {
    const methods: Record<string, boolean> = {};
    for (const [flag, on] of [
      ['enable', true],
      ['disable', false],
    ] as const) {
      for (const m of String(f[flag] ?? '')
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean)) {
        methods[m] = on;
      }
    }
    const patch = Object.fromEntries(
      Object.entries({
        click_lookback_hours: wholeNumberFlag(f, 'click-lookback-hours'),
        fingerprint_window_hours: wholeNumberFlag(f, 'fingerprint-window-hours'),
        reattribution_window_days: wholeNumberFlag(f, 'reattribution-window-days'),
        reengagement_inactivity_days: wholeNumberFlag(f, 'reengagement-inactivity-days'),
        suspicious_ctit_seconds: wholeNumberFlag(f, 'suspicious-ctit-seconds'),
      }).filter(([, v]) => v !== undefined),
    );
    const settings = await setAttributionSettings(deps, str(f, 'project'), { ...patch, methods });
    return { json: settings, text: JSON.stringify(settings, null, 2) };
  },
});

COMMANDS.push(...SETUP_COMMANDS);
COMMANDS.push(...SPEND_COMMANDS);
COMMANDS.push(...FACT_COMMANDS);
COMMANDS.push(...DELIVERY_COMMANDS);
COMMANDS.push(...ANALYTICS_COMMANDS);
COMMANDS.push(...SKAN_COMMANDS);
COMMANDS.push(...UNINSTALL_COMMANDS);
COMMANDS.push(...MCP_COMMANDS);
COMMANDS.push(...AUDIENCE_COMMANDS);

COMMANDS.push({
  path: ['projects', 'set-billing'],
  summary: 'suspend (true) or restore (false) billing; while suspended, reporting answers 402 with the payment link',
  needs: 'postgres',
  flags: {
    ...PROJECT,
    suspended: { type: 'string', required: true, description: 'true or false' },
    'payment-link': { type: 'string', description: 'http(s) URL returned as payment_link on 402 (empty clears it)' },
  },
  run: async (deps, f) => {
    const b = await setBilling(deps, str(f, 'project'), {
      suspended: str(f, 'suspended'),
      paymentLink: opt(f, 'payment-link'),
    });
    return {
      json: { project_id: str(f, 'project'), billing_suspended: b.suspended, payment_link: b.paymentLink },
      text: `billing ${b.suspended ? 'suspended' : 'active'}${b.paymentLink ? ` (payment link ${b.paymentLink})` : ''}`,
    };
  },
});

export const HELP = `usage: npm run cli -- <command> [flags] [--json]

commands:
${COMMANDS.map((c) => {
  const flags = Object.entries(c.flags)
    .map(([n, f]) => (f.required ? `--${n} <${n}>` : f.type === 'boolean' ? `[--${n}]` : `[--${n} <${n}>]`))
    .join(' ');
  return `  ${[...c.path, flags].filter(Boolean).join(' ')}\n      ${c.summary}`;
}).join('\n')}

Every command takes --json (one JSON value on stdout). Settings come from the environment (see .env.example).`;
