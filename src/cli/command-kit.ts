// Helpers shared by the CLI command tables: flag readers and the `<noun> list --project` shape.
import type { PgDeps } from '../deps.ts';
import { integerFlag } from '../domain/facts/fact-flags.ts';
import { requireProject } from '../domain/projects/require-project.ts';
import type { CommandSpec } from './commands.ts';
import type { Flags } from './flags.ts';
import { table } from './table.ts';

export const str = (f: Flags, k: string): string => String(f[k] ?? '');
export const opt = (f: Flags, k: string): string | undefined =>
  typeof f[k] === 'string' ? (f[k] as string) : undefined;
/** A whole-number flag (hours, days, seconds), or undefined when absent ('' is refused, not 0). */
export const wholeNumberFlag = (f: Flags, k: string): number | undefined =>
  integerFlag(k, opt(f, k), 0, Number.MAX_SAFE_INTEGER);
export const PROJECT = { project: { type: 'string', required: true, description: 'project id' } } as const;

/** `<noun> list --project <id>`: the project's rows, as JSON objects or a table. */
export function projectList<T>(
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
