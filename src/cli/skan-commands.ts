// `skan set-schema`, `skan show` and `skan dry-run`: the project's SKAN conversion schema as code.
// set-schema validates the JSON file (the same rules as PUT /api/v1/skan/schema) and stores it as
// the next version; dry-run evaluates a schema (the file given, else the current one) over a
// sample of recent iOS installs' recorded activity and writes nothing; with the current schema it
// shows the values live evaluation stored where it can, and says which windows were evaluated on
// their totals (see dry-run-schema.ts for why the two can differ).
import { readFile } from 'node:fs/promises';
import type { PgDeps } from '../deps.ts';
import { InputError } from '../domain/projects/input-error.ts';
import { requireProject } from '../domain/projects/require-project.ts';
import { type DryRunRow, dryRunSkanSchema, type LiveSince } from '../domain/skan/dry-run-schema.ts';
import type { SkanSchema } from '../domain/skan/schema.ts';
import { setSkanSchema } from '../domain/skan/set-skan-schema.ts';
import { validateSkanSchema } from '../domain/skan/validate-schema.ts';
import { findCurrentSkanSchema } from '../store/postgres/skan.ts';
import type { CommandSpec } from './commands.ts';
import { table } from './table.ts';

const PROJECT = { project: { type: 'string', required: true, description: 'project id' } } as const;
const MAX_SAMPLE = 10_000;

async function schemaFromFile(file: string): Promise<SkanSchema> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new InputError(`--file: cannot read JSON from '${file}' (${(err as Error).message})`);
  }
  const check = validateSkanSchema(raw);
  if (!check.ok) {
    throw new InputError(`--file: invalid SKAN schema: ${check.problem}`);
  }
  return check.schema;
}

async function currentSchema(
  deps: Pick<PgDeps, 'sql'>,
  projectId: string,
): Promise<{ schema: SkanSchema; live: LiveSince }> {
  const stored = await findCurrentSkanSchema(deps.sql, projectId);
  const check = stored ? validateSkanSchema(stored.schema) : undefined;
  if (!(stored && check?.ok)) {
    throw new InputError(`project '${projectId}' has no SKAN schema (see: skan set-schema)`);
  }
  return { schema: check.schema, live: { schemaCreatedAt: stored.createdAt } };
}

const TOTALS_NOTE =
  "totals: the schema evaluated once on the window's final activity; live evaluation runs per " +
  'activity, keeps a lock and never lowers a value, so a lock matched early or an amount range ' +
  'left by later activity can give the device other values';

function dryRunText(rows: DryRunRow[]): string {
  const lines = rows.flatMap((r) =>
    r.windows.map((w) => [
      r.installInstanceId,
      String(w.window),
      String(w.fine),
      w.coarse,
      String(w.lock),
      w.from,
      String(r.currentFine ?? '-'),
    ]),
  );
  const out = table(['install', 'window', 'fine', 'coarse', 'lock', 'from', 'current fine'], lines);
  return rows.some((r) => r.windows.some((w) => w.from === 'totals')) ? `${out}\n${TOTALS_NOTE}` : out;
}

/** Digits only, as every whole-number flag: Number() read '1e2' as 100 and '0x10' as 16. */
function sampleSize(v: unknown): number {
  const n = v === undefined ? 100 : Number(v);
  if ((v !== undefined && !/^\d+$/.test(String(v))) || !Number.isInteger(n) || n < 1 || n > MAX_SAMPLE) {
    throw new InputError(`--sample must be a whole number from 1 to ${MAX_SAMPLE}`);
  }
  return n;
}

export const SKAN_COMMANDS: CommandSpec[] = [
  {
    path: ['skan', 'set-schema'],
    summary: 'validate a SKAN conversion schema (JSON file) and store it as the next version',
    needs: 'postgres',
    flags: { ...PROJECT, file: { type: 'string', required: true, description: 'schema JSON file' } },
    run: async (deps, f) => {
      const project = await requireProject(deps, String(f.project));
      const saved = await setSkanSchema(deps, project.id, await schemaFromFile(String(f.file)));
      return { json: { version: saved.version }, text: `SKAN schema saved as version ${saved.version}` };
    },
  },
  {
    path: ['skan', 'show'],
    summary: "print the project's current SKAN schema and its version",
    needs: 'postgres',
    flags: PROJECT,
    run: async (deps, f) => {
      const project = await requireProject(deps, String(f.project));
      const stored = await findCurrentSkanSchema(deps.sql, project.id);
      if (!stored) {
        return { json: null, text: 'no SKAN schema set' };
      }
      const json = { version: stored.version, created_at: stored.createdAt.toISOString(), schema: stored.schema };
      return {
        json,
        text: `version ${stored.version} (${json.created_at})\n${JSON.stringify(stored.schema, null, 2)}`,
      };
    },
  },
  {
    path: ['skan', 'dry-run'],
    summary: 'show the values a schema would produce for a sample of recent iOS installs (writes nothing)',
    needs: 'postgres',
    flags: {
      ...PROJECT,
      sample: { type: 'string', description: 'how many recent installs (default 100)' },
      file: { type: 'string', description: 'schema JSON file to try (default: the current schema)' },
    },
    run: async (deps, f) => {
      const project = await requireProject(deps, String(f.project));
      const sample = sampleSize(f.sample);
      const { schema, live } =
        typeof f.file === 'string'
          ? { schema: await schemaFromFile(f.file), live: undefined }
          : await currentSchema(deps, project.id);
      const rows = await dryRunSkanSchema(deps, project.id, schema, sample, live);
      return {
        json: rows.map((r) => ({
          install_instance_id: r.installInstanceId,
          current_fine: r.currentFine,
          windows: r.windows,
        })),
        text: dryRunText(rows),
      };
    },
  },
];
