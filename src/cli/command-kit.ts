// Helpers shared by the CLI command tables: flag readers and the `<noun> list --project` shape.
import type { PgDeps } from '../deps.ts';
import { InputError } from '../domain/projects/input-error.ts';
import { requireProject } from '../domain/projects/require-project.ts';
import type { CommandSpec } from './commands.ts';
import type { Flags } from './flags.ts';
import { table } from './table.ts';

export const str = (f: Flags, k: string): string => String(f[k] ?? '');
export const opt = (f: Flags, k: string): string | undefined =>
  typeof f[k] === 'string' ? (f[k] as string) : undefined;
/**
 * A whole-number flag (hours, days, seconds), or undefined when absent. Number() would read '' and
 * ' ' as 0 (an unset shell variable turned fingerprinting off), '0x10' as 16 and '1e2' as 100.
 */
export function wholeNumberFlag(f: Flags, k: string): number | undefined {
  const v = opt(f, k);
  if (v === undefined) {
    return undefined;
  }
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) {
    throw new InputError(`--${k} must be a whole number, 0 or more (got '${v}')`);
  }
  return Number(v);
}
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
