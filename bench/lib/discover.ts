// Finds the workloads: every bench/workloads/<name>.ts exporting `workload` named <name>. Adding a
// workload is adding one file. (The app itself never loads code by directory scan; the harness
// does, so a later round's workload cannot be forgotten in a list.)
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../../src/lib/paths.ts';
import { UsageError } from './args.ts';
import type { Workload } from './workload.ts';

export const WORKLOADS_DIR = path.join(ROOT, 'bench', 'workloads');

/** The named workloads (all of them when no name is given); only their files are imported. */
export async function loadWorkloads(names: string[]): Promise<Workload[]> {
  const available = readdirSync(WORKLOADS_DIR)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.slice(0, -'.ts'.length))
    .sort();
  const unknown = names.filter((n) => !available.includes(n));
  if (unknown.length > 0) {
    throw new UsageError(`unknown workload ${unknown.join(', ')}; known: ${available.join(', ')}`);
  }
  const out: Workload[] = [];
  for (const name of names.length > 0 ? available.filter((n) => names.includes(n)) : available) {
    const file = path.join(WORKLOADS_DIR, `${name}.ts`);
    const mod = (await import(pathToFileURL(file).href)) as { workload?: Workload };
    if (!mod.workload || mod.workload.name !== name) {
      throw new Error(`bench/workloads/${name}.ts must export \`workload\` with name '${name}'`);
    }
    out.push(mod.workload);
  }
  return out.sort((a, b) => a.order - b.order || a.name.localeCompare(b.name));
}
