// Helpers for the security suite (catalog §4d): the routes the app really serves, read back from
// Fastify's route tree (so a route added later cannot escape the matrices), path parameters
// filled in, and the one-line figure each security test prints.
import type { FastifyInstance } from 'fastify';

export type ServedRoute = { method: string; url: string };

/**
 * Every (method, url) the app serves, parsed from printRoutes({ commonPrefix: false }): each line
 * is a path segment under its parent (4 columns per level) followed by its methods in parentheses.
 */
export function servedRoutes(app: FastifyInstance): ServedRoute[] {
  const tree = app.printRoutes({ commonPrefix: false });
  const stack: string[] = [];
  const out: ServedRoute[] = [];
  for (const line of tree.split('\n')) {
    const m = /^(.*?)(?:├── |└── )(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m) {
      continue;
    }
    const depth = (m[1] ?? '').length / 4;
    const segment = m[2] ?? '';
    stack.length = depth;
    stack.push(segment);
    const url = stack.join('');
    for (const method of (m[3] ?? '').split(',').map((s) => s.trim())) {
      if (method) {
        out.push({ method, url });
      }
    }
  }
  return out.sort((a, b) => `${a.url} ${a.method}`.localeCompare(`${b.url} ${b.method}`));
}

/** The url with each `:name` replaced by values[name] (URI-encoded), or `x` when not given. */
export function fillParams(url: string, values: Record<string, string> = {}): string {
  return url.replace(/:([A-Za-z_]+)/g, (_m, name: string) => encodeURIComponent(values[name] ?? 'x'));
}

/** Prints the test's figure on one line, e.g. `[security D1] probes=412 accepted_should_refuse=0`. */
export function figure(id: string, values: Record<string, number | string>): void {
  const parts = Object.entries(values).map(([k, v]) => `${k}=${v}`);
  console.log(`[security ${id}] ${parts.join(' ')}`);
}

/** Counts probes and keeps a readable line for each failed one (the failure message, and the figure's count). */
export class Tally {
  probes = 0;
  readonly failures: string[] = [];

  check(ok: boolean, what: string): void {
    this.probes += 1;
    if (!ok) {
      this.failures.push(what);
    }
  }

  get bad(): number {
    return this.failures.length;
  }
}
