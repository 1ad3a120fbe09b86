// The CLI's command table: what each command takes, and how its result prints (text or --json).
import type { PgDeps } from '../deps.ts';
import { RESOLVED_NETWORKS, setNetworkCampaignId } from '../domain/campaigns/set-network-campaign-id.ts';
import { addDomain } from '../domain/projects/add-domain.ts';
import { addNetworkAccount } from '../domain/projects/add-network-account.ts';
import { addStoreListing } from '../domain/projects/add-store-listing.ts';
import { createProject } from '../domain/projects/create-project.ts';
import { createSigningKey } from '../domain/projects/create-signing-key.ts';
import { requireProject } from '../domain/projects/require-project.ts';
import { revokeSigningKey } from '../domain/projects/revoke-signing-key.ts';
import { rotateServerKey } from '../domain/projects/rotate-server-key.ts';
import { setAttributionSettings } from '../domain/projects/set-attribution-settings.ts';
import { setBilling } from '../domain/projects/set-billing.ts';
import { setMetaReferrerKey } from '../domain/projects/set-meta-referrer-key.ts';
import { setSigningEnforcement } from '../domain/projects/set-signing-enforcement.ts';
import { setWellKnown } from '../domain/projects/set-well-known.ts';
import { listDomains } from '../store/postgres/domains.ts';
import { listNetworkAccounts } from '../store/postgres/network-accounts.ts';
import { listProjects, type Project } from '../store/postgres/projects.ts';
import { listSigningKeys, type SigningKeySummary } from '../store/postgres/signing-keys.ts';
import { listStoreListings } from '../store/postgres/store-listings.ts';
import { DELIVERY_COMMANDS } from './delivery-commands.ts';
import { FACT_COMMANDS } from './fact-commands.ts';
import type { FlagSpec, Flags } from './flags.ts';
import { SKAN_COMMANDS } from './skan-commands.ts';
import { SPEND_COMMANDS } from './spend-commands.ts';
import { table } from './table.ts';
import { UNINSTALL_COMMANDS } from './uninstall-commands.ts';

export type CommandResult = { json: unknown; text: string };
export type CommandSpec = {
  path: string[];
  summary: string;
  needs: 'postgres' | 'all';
  flags: FlagSpec;
  run: (deps: PgDeps, flags: Flags, progress: (line: string) => void) => Promise<CommandResult>;
};

const str = (f: Flags, k: string): string => String(f[k] ?? '');
const opt = (f: Flags, k: string): string | undefined => (typeof f[k] === 'string' ? (f[k] as string) : undefined);
const PROJECT = { project: { type: 'string', required: true, description: 'project id' } } as const;

const projectJson = (p: Project) => ({
  id: p.id,
  name: p.name,
  timezone: p.timezone,
  currency: p.displayCurrency,
  token: p.token,
  website: p.website,
  created_at: p.createdAt.toISOString(),
});
// Never holds the secret: only `signing-keys create` prints it, once.
const signingKeyJson = (k: SigningKeySummary) => ({
  key_id: k.keyId,
  platform: k.platform,
  active: k.active,
  created_at: k.createdAt.toISOString(),
});

/** `<noun> list --project <id>`: the project's rows, as JSON objects or a table. */
function projectList<T>(
  noun: string,
  summary: string,
  fetch: (deps: PgDeps, projectId: string) => Promise<T[]>,
  json: (row: T) => unknown,
  columns: string[],
  cells: (row: T) => string[],
): CommandSpec {
  return {
    path: [noun, 'list'],
    summary,
    needs: 'postgres',
    flags: PROJECT,
    run: async (deps, f) => {
      await requireProject(deps, str(f, 'project'));
      const list = await fetch(deps, str(f, 'project'));
      return { json: list.map(json), text: table(columns, list.map(cells)) };
    },
  };
}

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
        text: `project ${project.id} (${project.name})\n  token:      ${project.token}\n  server key: ${serverKey}\n  (the server key is shown only now; keep it secret)`,
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
      const warning =
        enforce && activeKeys === 0 ? '\n(warning: no active signing key; every SDK request is refused)' : '';
      return {
        json: { project_id: str(f, 'project'), enforce_sdk_signing: enforce, active_keys: activeKeys },
        text: `SDK signing ${enforce ? 'enforced' : 'not enforced'} (${activeKeys} active key(s))${warning}`,
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
        text: `campaign ${c.displayId} (${c.network}) mapped to network campaign ${c.networkCampaignId}${
          unused ? `\n(note: no resolver reads ${c.network} ids yet; only ${RESOLVED_NETWORKS.join(', ')})` : ''
        }`,
      };
    },
  },
  {
    path: ['domains', 'add'],
    summary: 'add a link domain (the first one, or --primary, becomes primary)',
    needs: 'postgres',
    flags: {
      ...PROJECT,
      name: { type: 'string', required: true, description: 'host name, e.g. links.example.com' },
      primary: { type: 'boolean', description: 'make it the primary domain' },
    },
    run: async (deps, f) => {
      const d = await addDomain(deps, str(f, 'project'), { name: str(f, 'name'), primary: f.primary === true });
      return {
        json: { id: d.id, name: d.name, is_primary: d.isPrimary },
        text: `domain ${d.name} added (id ${d.id}${d.isPrimary ? ', primary' : ''})`,
      };
    },
  },
  projectList(
    'domains',
    "list a project's domains",
    (deps, id) => listDomains(deps.sql, id),
    (d) => ({ id: d.id, name: d.name, is_primary: d.isPrimary }),
    ['id', 'name', 'primary'],
    (d) => [String(d.id), d.name, d.isPrimary ? 'yes' : ''],
  ),
  {
    path: ['store-listings', 'add'],
    summary: 'add a store listing (IOS or ANDROID) with its store URL',
    needs: 'postgres',
    flags: {
      ...PROJECT,
      platform: { type: 'string', required: true, description: 'IOS or ANDROID' },
      name: { type: 'string', required: true, description: 'display name' },
      url: { type: 'string', required: true, description: 'App Store or Play Store URL' },
    },
    run: async (deps, f) => {
      const l = await addStoreListing(deps, str(f, 'project'), {
        platform: str(f, 'platform'),
        name: str(f, 'name'),
        url: str(f, 'url'),
      });
      return {
        json: { store_listing_id: l.id, name: l.name, platform: l.platform, store_url: l.storeUrl },
        text: `store listing ${l.id} added (${l.platform}, ${l.name})`,
      };
    },
  },
  projectList(
    'store-listings',
    "list a project's store listings",
    (deps, id) => listStoreListings(deps.sql, id),
    (l) => ({ store_listing_id: l.id, name: l.name, platform: l.platform, store_url: l.storeUrl }),
    ['store_listing_id', 'platform', 'name', 'store_url'],
    (l) => [l.id, l.platform, l.name, l.storeUrl],
  ),
  {
    path: ['network-accounts', 'add'],
    summary: 'add an ad-network account',
    needs: 'postgres',
    flags: {
      ...PROJECT,
      network: { type: 'string', required: true, description: 'network code: META, GOOGLE, TIKTOK, ...' },
      name: { type: 'string', required: true, description: 'account name' },
      email: { type: 'string', description: 'account email' },
      status: { type: 'string', description: 'ACTIVE (default), INACTIVE or DISCONNECTED' },
    },
    run: async (deps, f) => {
      const a = await addNetworkAccount(deps, str(f, 'project'), {
        network: str(f, 'network'),
        name: str(f, 'name'),
        email: opt(f, 'email'),
        status: opt(f, 'status'),
      });
      return {
        json: { id: a.id, network: a.network, name: a.name, email: a.email, status: a.status },
        text: `network account ${a.id} added (${a.network}, ${a.name})`,
      };
    },
  },
  projectList(
    'network-accounts',
    "list a project's ad-network accounts",
    (deps, id) => listNetworkAccounts(deps.sql, id),
    (a) => ({ id: a.id, network: a.network, name: a.name, email: a.email, status: a.status }),
    ['id', 'network', 'name', 'email', 'status'],
    (a) => [String(a.id), a.network, a.name, a.email, a.status],
  ),
  {
    path: ['signing-keys', 'create'],
    summary: 'issue an SDK signing key for IOS or ANDROID; prints the key id and secret (shown once)',
    needs: 'postgres',
    flags: { ...PROJECT, platform: { type: 'string', required: true, description: 'IOS or ANDROID' } },
    run: async (deps, f) => {
      const k = await createSigningKey(deps, str(f, 'project'), { platform: str(f, 'platform') });
      return {
        json: { project_id: k.projectId, ...signingKeyJson(k), secret_key: k.secret },
        text: `signing key ${k.keyId} (${k.platform})\n  key id:     ${k.keyId}\n  secret key: ${k.secret}\n  (the secret is shown only now; give both to the SDK's initialize)`,
      };
    },
  },
  projectList(
    'signing-keys',
    "list a project's SDK signing keys (never their secrets)",
    (deps, id) => listSigningKeys(deps.sql, id),
    signingKeyJson,
    ['key_id', 'platform', 'active', 'created_at'],
    (k) => [k.keyId, k.platform, k.active ? 'yes' : 'no', k.createdAt.toISOString()],
  ),
  {
    path: ['signing-keys', 'revoke'],
    summary: 'deactivate an SDK signing key; requests signed with it are refused from now on',
    needs: 'postgres',
    flags: { ...PROJECT, 'key-id': { type: 'string', required: true, description: 'key id (lrk_...)' } },
    run: async (deps, f) => {
      const k = await revokeSigningKey(deps, str(f, 'project'), str(f, 'key-id'));
      return { json: signingKeyJson(k), text: `signing key ${k.keyId} (${k.platform}) revoked` };
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
    const num = (k: string) => (typeof f[k] === 'string' ? Number(f[k]) : undefined);
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
        click_lookback_hours: num('click-lookback-hours'),
        fingerprint_window_hours: num('fingerprint-window-hours'),
        reattribution_window_days: num('reattribution-window-days'),
        reengagement_inactivity_days: num('reengagement-inactivity-days'),
        suspicious_ctit_seconds: num('suspicious-ctit-seconds'),
      }).filter(([, v]) => v !== undefined),
    );
    const settings = await setAttributionSettings(deps, str(f, 'project'), { ...patch, methods });
    return { json: settings, text: JSON.stringify(settings, null, 2) };
  },
});

COMMANDS.push(...SPEND_COMMANDS);
COMMANDS.push(...FACT_COMMANDS);
COMMANDS.push(...DELIVERY_COMMANDS);
COMMANDS.push(...SKAN_COMMANDS);
COMMANDS.push(...UNINSTALL_COMMANDS);

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
