// The bad-input suite's oracle (catalog §4c, §2 I8): every answer is in the route's documented set
// of statuses, never a 5xx, under the latency budget (a slow answer is retried once, so one GC pause
// on a loaded machine is not a failure), and the app still answers /healthz afterwards. Each file
// keeps a tally and prints one summary line: cases run, 5xx count, crashes, max latency.

import fc from 'fast-check';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

/** Fixed so failures reproduce; override with BAD_INPUT_SEED to explore. */
export const SEED = Number(process.env.BAD_INPUT_SEED ?? 20261121);
/** Runs per property; BAD_INPUT_RUNS raises it for a deeper local pass. */
export const RUNS = Number(process.env.BAD_INPUT_RUNS ?? 50);
/** I8: each answer under 1 s. */
export const LATENCY_BUDGET_MS = Number(process.env.BAD_INPUT_LATENCY_MS ?? 1000);

export type Res = LightMyRequestResponse;

export class Tally {
  cases = 0;
  fivexx = 0;
  crashes = 0;
  maxMs = 0;
  slowest = '';
  readonly statuses = new Map<number, number>();
  /** `fixed`: the file runs only fixed cases (no fast-check), so no seed applies. */
  constructor(
    readonly file: string,
    readonly fixed = false,
  ) {}

  line(): string {
    const statuses = [...this.statuses.entries()]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}:${n}`)
      .join(' ');
    return `[bad-input] ${this.file}: ${this.cases} cases, ${this.fivexx} 5xx, ${this.crashes} crashes, max latency ${Math.round(this.maxMs)} ms [${this.slowest}] (${this.fixed ? 'fixed cases' : `seed ${SEED}, ${RUNS} runs/property`}; statuses ${statuses})`;
  }
}

export type Case = InjectOptions & { label?: string };

function describeCase(c: Case): string {
  const payload = typeof c.payload === 'string' ? c.payload : c.payload ? '<buffer/object>' : '';
  const shown = payload.length > 300 ? `${payload.slice(0, 300)}… (${payload.length} chars)` : payload;
  // An MCP token is a credential: printed lines show a fuzzed path value, never the fixture's token.
  const url = String(c.url ?? '').replace(/mcp_[\w-]{40,}/g, 'mcp_[token]');
  return `${c.label ?? ''} ${c.method} ${url.length > 300 ? `${url.slice(0, 300)}…` : url} ${shown}`.trim();
}

/**
 * Sends one case and applies the oracle. Throws (so fast-check shrinks and prints the seed) when
 * the status is outside `allowed`, a 5xx, or the answer is over budget twice in a row.
 */
export async function check(app: FastifyInstance, tally: Tally, c: Case, allowed: readonly number[]): Promise<Res> {
  const { label: _label, ...opts } = c;
  let res: Res | undefined;
  let ms = 0;
  for (let attempt = 0; attempt < 2; attempt++) {
    const t0 = performance.now();
    try {
      res = (await app.inject(opts)) as Res;
    } catch (err) {
      tally.crashes += 1;
      throw new Error(`inject threw for ${describeCase(c)}: ${String(err)}`);
    }
    ms = performance.now() - t0;
    if (ms < LATENCY_BUDGET_MS) {
      break;
    }
  }
  const r = res as Res;
  tally.cases += 1;
  if (ms > tally.maxMs) {
    tally.maxMs = ms;
    tally.slowest = describeCase(c).slice(0, 80);
  }
  tally.statuses.set(r.statusCode, (tally.statuses.get(r.statusCode) ?? 0) + 1);
  if (r.statusCode >= 500) {
    tally.fivexx += 1;
  }
  if (!allowed.includes(r.statusCode)) {
    throw new Error(
      `status ${r.statusCode} not in [${allowed.join(', ')}] for ${describeCase(c)}\n  body: ${r.body.slice(0, 400)}`,
    );
  }
  if (ms >= LATENCY_BUDGET_MS) {
    throw new Error(`answer took ${Math.round(ms)} ms (twice over ${LATENCY_BUDGET_MS} ms) for ${describeCase(c)}`);
  }
  return r;
}

/** The process is still serving: /healthz answers 200 {status: ok}. */
export async function expectAlive(app: FastifyInstance): Promise<void> {
  const res = await app.inject({ method: 'GET', url: '/healthz' });
  expect(res.statusCode).toBe(200);
  expect(res.json()).toEqual({ status: 'ok' });
}

/** Runs an async property with the suite's seed, printing the seed and path when it fails. */
export async function property<T>(arb: fc.Arbitrary<T>, run: (v: T) => Promise<void>, numRuns = RUNS): Promise<void> {
  await fc.assert(
    fc.asyncProperty(arb, async (v) => {
      await run(v);
    }),
    { seed: SEED, numRuns, endOnFailure: true },
  );
}
