// The repetition loop: every selected workload once per repetition, in order, each next to the
// ceilings of the same repetition (measured on first use, then shared). Measures that need the
// stores after the service stopped are collected at the end.
import { measureCeiling } from './ceilings.ts';
import { type MemoryWatch, watchMemory } from './memory.ts';
import { createRng } from './seed.ts';
import type { Session } from './session.ts';
import { round } from './stats.ts';
import type { Ceiling, CeilingKind, Harness, RepOutcome, Workload } from './workload.ts';

/** FNV-1a of the label: each workload, repetition and purpose gets its own stream from the one seed. */
function seedOf(seed: number, label: string): number {
  let h = 0x811c9dc5 ^ seed;
  for (let i = 0; i < label.length; i++) {
    h = Math.imul(h ^ label.charCodeAt(i), 0x01000193);
  }
  return h >>> 0;
}

export type RunPlan = { selected: Workload[]; reps: number; quick: boolean; seed: number; runId: string };

export async function runReps(
  plan: RunPlan,
  session: Session,
  load: Harness['load'],
  progress: (line: string) => void,
): Promise<Map<string, RepOutcome[]>> {
  const outcomes = new Map<string, RepOutcome[]>(plan.selected.map((w) => [w.name, []]));
  for (let rep = 1; rep <= plan.reps; rep++) {
    const ceilings = new Map<CeilingKind, Promise<Ceiling>>();
    const ceiling = (kind: CeilingKind): Promise<Ceiling> => {
      let p = ceilings.get(kind);
      if (!p) {
        p = (async () => {
          const server = await session.ceilingServer();
          const rng = createRng(seedOf(plan.seed, `ceiling|${rep}|${kind}`));
          const c = await measureCeiling(kind, server, load, rng, plan.quick);
          const note = c.note ? `; ${c.note}` : '';
          progress(
            `ceiling ${kind}: ${Math.round(c.okPerS)}/s, p50 ${round(c.p50, 2)} ms, p99 ${round(c.p99, 2)} ms${note}`,
          );
          return c;
        })();
        ceilings.set(kind, p);
      }
      return p;
    };
    for (const w of plan.selected) {
      progress(`repetition ${rep}/${plan.reps}: ${w.name}`);
      let usesService = false;
      const h: Harness = {
        rep,
        reps: plan.reps,
        quick: plan.quick,
        runId: plan.runId,
        load,
        rng: (label) => createRng(seedOf(plan.seed, `${w.name}|${rep}|${label}`)),
        progress,
        ceiling,
        service: () => {
          usesService = true;
          return session.service();
        },
        layout: session.layout,
      };
      // Peak RSS of the service (and its Postgres) while a workload that uses it runs: rows of their own.
      const memory = watchMemory(() => (usesService ? session.servicePid : undefined));
      let outcome: RepOutcome;
      let m: ReturnType<MemoryWatch['stop']>;
      try {
        outcome = await w.run(h);
      } finally {
        m = memory.stop();
      }
      if (m) {
        Object.assign(outcome.measures, m.measures);
        outcome.details.memory = m.details;
        progress(
          `${w.name}: peak RSS service ${m.details.service_mb} MB, largest child ${m.details.largest_child_mb} MB`,
        );
      }
      outcomes.get(w.name)?.push(outcome);
    }
  }
  return outcomes;
}

/** Measures that need the stores after the service stopped (clicks in ClickHouse). */
export async function collectAfterStop(session: Session, outcomes: Map<string, RepOutcome[]>): Promise<void> {
  await session.finish(async (facts) => {
    for (const list of outcomes.values()) {
      for (const o of list) {
        if (o.afterStop) {
          const late = await o.afterStop(facts);
          Object.assign(o.measures, late.measures);
          Object.assign(o.details, late.details ?? {});
        }
      }
    }
  });
}
