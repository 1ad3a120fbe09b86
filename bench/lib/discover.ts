// Finds the workloads: every bench/workloads/<name>.ts exporting `workload` named <name>. Adding a
// workload is adding one file. (The app itself never loads code by directory scan; the harness
// does, so a later round's workload cannot be forgotten in a list.)
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../../src/lib/paths.ts';
import type { Workload } from './workload.ts';

export const WORKLOADS_DIR = path.join(ROOT, 'bench', 'workloads');

export async function loadWorkloads(): Promise<Workload[]> {
  const files = readdirSync(WORKLOADS_DIR)
    .filter((f) => f.endsWith('.ts'))
    .sort();
  const out: Workload[] = [];
  for (const f of files) {
    const mod = (await import(pathToFileURL(path.join(WORKLOADS_DIR, f)).href)) as { workload?: Workload };
    const name = f.slice(0, -'.ts'.length);
    if (!mod.workload || mod.workload.name !== name) {
      throw new Error(`bench/workloads/${f} must export \`workload\` with name '${name}'`);
    }
    out.push(mod.workload);
  }
  return out.sort((a, b) => a.order - b.order || a.name.localeCompare(b.name));
}

export function selectWorkloads(all: Workload[], names: string[]): Workload[] {
  if (names.length === 0) {
    return all;
  }
  const unknown = names.filter((n) => !all.some((w) => w.name === n));
  if (unknown.length > 0) {
    throw new Error(`unknown workload ${unknown.join(', ')}; known: ${all.map((w) => w.name).join(', ')}`);
  }
  return all.filter((w) => names.includes(w.name));
}
