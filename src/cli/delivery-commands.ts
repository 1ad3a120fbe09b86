// Outgoing deliveries: the Meta Conversions API connection and event mappings, webhooks, the dead
// letters and their replay, and the product catalog with its match rate. Postgres only: the
// delivery schedule of a running worker picks up what these change.
import { addWebhook } from '../domain/deliveries/add-webhook.ts';
import { catalogMatchRate } from '../domain/deliveries/catalog-match-rate.ts';
import { importCatalog } from '../domain/deliveries/import-catalog.ts';
import { checkMapping, mapEvent } from '../domain/deliveries/map-event.ts';
import { replayDeadDeliveries } from '../domain/deliveries/replay-dead-deliveries.ts';
import { checkMetaConnection, setMetaConnection } from '../domain/deliveries/set-meta-connection.ts';
import { positiveIntFlag } from '../domain/facts/fact-flags.ts';
import { InputError, trueOrFalse } from '../domain/projects/input-error.ts';
import { requireProject } from '../domain/projects/require-project.ts';
import { escapeControlChars } from '../lib/control-chars.ts';
import type { SourceKind } from '../store/postgres/connections.ts';
import { listDeadDeliveries } from '../store/postgres/deliveries.ts';
import type { CommandSpec } from './commands.ts';
import type { Flags } from './flags.ts';

const PROJECT = { project: { type: 'string', required: true, description: 'project id' } } as const;
const OPTIONAL_PROJECT = { project: { type: 'string', description: 'project id (default: all projects)' } } as const;

/** --project when given, checked like every other command's (an unknown one exits 2, not 0 or 1). */
async function optionalProject(deps: Parameters<typeof requireProject>[0], id: string | undefined) {
  return id === undefined ? undefined : (await requireProject(deps, id)).id;
}
const str = (f: Flags, k: string): string => String(f[k] ?? '');
const opt = (f: Flags, k: string): string | undefined => (typeof f[k] === 'string' ? (f[k] as string) : undefined);

/** The domain's rule text (shared with the HTTP API: `dataset_id must …`) in flag terms. */
const asFlags = (problem: string) =>
  problem.replace(/^(dataset_id|access_token|graph_version)\b/, (m) => `--${m.replaceAll('_', '-')}`);

/** checkMapping's rule text (shared with the HTTP API: `kind must …`) in flag terms. */
const mappingAsFlags = (problem: string) =>
  problem
    .replace(/^(kind|name)\b/, '--$1')
    .replace(/^(an event maps|a payment type maps)\b/, '--to: $1')
    .replace(/^a payment type is\b/, '--name: a payment type is');

const DEAD_LETTERS_LIMIT = 1000;

export const DELIVERY_COMMANDS: CommandSpec[] = [
  {
    path: ['connections', 'set-meta'],
    summary: 'connect the project to its Meta dataset (Conversions API); only facts after activation are sent',
    needs: 'postgres',
    flags: {
      ...PROJECT,
      'dataset-id': { type: 'string', required: true, description: 'Meta dataset (pixel) id' },
      'access-token': {
        type: 'string',
        required: true,
        description: 'Conversions API access token (stored encrypted)',
      },
      'graph-version': { type: 'string', description: 'Graph API version, e.g. v21.0 (default: META_GRAPH_VERSION)' },
      active: { type: 'string', required: true, description: 'true or false' },
    },
    run: async (deps, f) => {
      // Trimmed as PUT /api/v1/connections/meta trims them: a token pasted with its newline.
      const input = {
        datasetId: str(f, 'dataset-id').trim(),
        accessToken: str(f, 'access-token').trim(),
        graphVersion: opt(f, 'graph-version') ?? null,
        active: trueOrFalse('active', str(f, 'active')),
      };
      const problem = checkMetaConnection(input);
      if (problem) {
        throw new InputError(asFlags(problem));
      }
      const c = await setMetaConnection({ ...deps, now: Date.now }, str(f, 'project'), input);
      const json = {
        project_id: str(f, 'project'),
        dataset_id: c.datasetId,
        graph_version: c.graphVersion,
        active: c.active,
        activated_at: c.activatedAt?.toISOString() ?? null,
        token_fingerprint: c.tokenFingerprint,
      };
      return {
        json,
        text: `Meta dataset ${c.datasetId} ${c.active ? 'active' : 'inactive'} (token ${c.tokenFingerprint})`,
      };
    },
  },
  {
    path: ['connections', 'map'],
    summary: 'map an event name to AddToCart or ViewContent, or a payment type to Purchase',
    needs: 'postgres',
    flags: {
      ...PROJECT,
      kind: { type: 'string', required: true, description: 'event or payment' },
      name: { type: 'string', required: true, description: 'the event name or payment type' },
      to: { type: 'string', required: true, description: 'AddToCart, ViewContent or Purchase' },
    },
    run: async (deps, f) => {
      const input = { kind: str(f, 'kind') as SourceKind, name: str(f, 'name'), to: str(f, 'to') };
      const problem = checkMapping(input);
      if (problem) {
        throw new InputError(mappingAsFlags(problem));
      }
      const m = await mapEvent(deps, str(f, 'project'), input);
      return {
        json: { kind: m.kind, name: m.name, to: m.to },
        text: `${m.kind} '${escapeControlChars(m.name)}' → ${m.to}`,
      };
    },
  },
  {
    path: ['webhooks', 'add'],
    summary: 'POST install and/or signup notifications to a URL, signed with HMAC-SHA256 (the secret prints once)',
    needs: 'postgres',
    flags: {
      ...PROJECT,
      url: { type: 'string', required: true, description: 'http(s) URL' },
      events: { type: 'string', description: 'comma list of install, signup (default: both)' },
    },
    run: async (deps, f) => {
      const events = (opt(f, 'events') ?? 'install,signup').split(',').map((e) => e.trim());
      const w = await addWebhook(deps, str(f, 'project'), { url: str(f, 'url'), events });
      return {
        json: { id: w.id, url: w.url, events: w.events, secret: w.secret, replaced_secret: w.replaced },
        text: `webhook ${w.id} → ${w.url} (${w.events.join(', ')})\nsigning secret (shown once): ${w.secret}`,
        warning: w.replaced
          ? 'this URL was already added: its earlier signing secret stops working now; give the receiver this one'
          : undefined,
      };
    },
  },
  {
    path: ['deliveries', 'dead-letters'],
    summary: 'list deliveries that failed for good (dead) or broke the field rules (invalid), with the reason',
    needs: 'postgres',
    flags: {
      ...OPTIONAL_PROJECT,
      limit: { type: 'string', description: `rows to list (default ${DEAD_LETTERS_LIMIT}), oldest first` },
    },
    run: async (deps, f) => {
      const limit = positiveIntFlag('limit', opt(f, 'limit'), 1_000_000) ?? DEAD_LETTERS_LIMIT;
      const project = await optionalProject(deps, opt(f, 'project'));
      // One row past the limit says whether the list was cut.
      const rows = await listDeadDeliveries(deps.sql, project, limit + 1);
      const list = rows.slice(0, limit);
      const cut =
        rows.length > limit
          ? `only the first ${limit} dead letters are listed; --limit <n> lists more${project ? '' : ', --project narrows'}`
          : undefined;
      const json = list.map((d) => ({
        id: d.id,
        project_id: d.projectId,
        destination: d.destination,
        event: d.eventKey,
        status: d.status,
        attempts: d.attempts,
        reason: d.reason,
      }));
      // The event key holds an install id or user id an SDK client sent, the reason a receiver's
      // answer: one line per delivery whatever they hold.
      const lines = list.map(
        (d) =>
          `${d.id} ${escapeControlChars(d.destination)} ${escapeControlChars(d.eventKey)} ${d.status}: ${escapeControlChars(d.reason ?? '')}`,
      );
      return { json, text: lines.length > 0 ? lines.join('\n') : 'no dead letters', warning: cut };
    },
  },
  {
    path: ['deliveries', 'replay'],
    summary: 'send dead deliveries again (invalid ones stay: they would fail the same checks)',
    needs: 'postgres',
    flags: { ...OPTIONAL_PROJECT, id: { type: 'string', description: 'comma list of delivery ids (default: all)' } },
    run: async (deps, f) => {
      const given = opt(f, 'id');
      const ids = given
        ?.split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      // Given but naming no id (`--id "$IDS"` with IDS unset, `--id ,`) is refused as every other
      // empty value is: replaying all instead, or nothing with exit 0, is not what was asked.
      if (ids && (ids.length === 0 || ids.some((id) => !/^\d{1,18}$/.test(id)))) {
        throw new InputError(`--id must be a comma list of delivery ids, numbers (got '${given}')`);
      }
      const projectId = await optionalProject(deps, opt(f, 'project'));
      const r = await replayDeadDeliveries({ sql: deps.sql, now: Date.now }, { projectId, ids });
      return { json: r, text: `requeued ${r.deliveries} dead deliveries of ${r.destinations} destination(s)` };
    },
  },
  {
    path: ['catalog', 'import'],
    summary: 'add product ids from a CSV with an id (or product_id, content_id) column to the catalog',
    needs: 'postgres',
    flags: { ...PROJECT, file: { type: 'string', required: true, description: 'CSV file' } },
    run: async (deps, f) => {
      const r = await importCatalog(deps, str(f, 'project'), str(f, 'file'));
      return { json: r, text: `${r.rows} rows, ${r.added} new product ids` };
    },
  },
  {
    path: ['catalog', 'match-rate'],
    summary: 'share of product ids sent to Meta that the catalog holds (recommended: 90 % or more)',
    needs: 'postgres',
    flags: { ...PROJECT },
    run: async (deps, f) => {
      const r = await catalogMatchRate(deps, str(f, 'project'));
      const pct = r.rate === null ? 'n/a' : `${(r.rate * 100).toFixed(1)} %`;
      return {
        json: { forwarded: r.forwarded, matched: r.matched, rate: r.rate, meets_recommendation: r.meetsRecommendation },
        text: `${pct} (${r.matched} of ${r.forwarded} forwarded product ids in the catalog; recommended >= 90 %)`,
      };
    },
  },
];
