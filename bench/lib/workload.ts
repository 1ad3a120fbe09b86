// The contract of a workload. A workload is one file in bench/workloads/ exporting `workload`; the
// harness finds it there, runs it once per repetition, and turns its measures into table rows.
// Each measure carries the ceiling it is judged against, measured in the same repetition, so the
// ratio (value ÷ ceiling) is what gets compared across runs and machines.
import type { FactsReader } from './facts.ts';
import type { Layout } from './layout.ts';
import type { LoadSettings } from './load.ts';
import type { BenchProject } from './project.ts';
import type { Rng } from './seed.ts';
import type { RunningService } from './service.ts';

export type Better = 'higher' | 'lower';

/** A goal reported as PASS / FALLS SHORT (never enforced). `on` says which number it bounds. */
export type Target = { on: 'ratio' | 'value'; atLeast?: number; atMost?: number; text: string };

export type MetricSpec = {
  id: string;
  label: string;
  unit: string;
  better: Better;
  /** What the ceiling column holds. Absent: the metric is itself a ceiling, with no ratio. */
  ceiling?: string;
  target?: Target;
};

export type Measure = { value: number; ceiling?: number };
export type Measures = Record<string, Measure>;

export type RepOutcome = {
  measures: Measures;
  details: Record<string, unknown>;
  /** Measures that need the stores read after the service stopped (embedded ClickHouse is locked while it runs). */
  afterStop?: (facts: FactsReader) => Promise<{ measures: Measures; details?: Record<string, unknown> }>;
};

/**
 * The same-run reference figures: bare Fastify GET (302) and POST (600-byte JSON), the same POST
 * answered after a group-fdatasync'd append to a local file, and a paced POST round trip.
 */
export type CeilingKind = 'get' | 'post' | 'post_durable' | 'rtt';
export type Ceiling = {
  okPerS: number;
  p50: number;
  p99: number;
  details: Record<string, unknown>;
  /** For the progress line (CPU use). */
  note?: string;
};

export type BenchTarget = { svc: RunningService; project: BenchProject };

/** What the harness gives a workload for one repetition. */
export type Harness = {
  rep: number;
  reps: number;
  quick: boolean;
  /** Unique per bench run; keeps ids apart when several runs share service-mode stores. */
  runId: string;
  load: LoadSettings;
  /** A generator seeded by the run's seed, the workload, the repetition and the label. */
  rng: (label: string) => Rng;
  progress: (line: string) => void;
  /** Measured once per repetition, on first use, and shared by the workloads of that repetition. */
  ceiling: (kind: CeilingKind) => Promise<Ceiling>;
  /** The service under test with the bench project, started on first use and kept for the whole run. */
  service: () => Promise<BenchTarget>;
  /** Where processes run: a workload that starts its own process pins it like the service. */
  layout: Layout;
};

export type Workload = {
  name: string;
  summary: string;
  /** Run order inside a repetition (lower first). */
  order: number;
  metrics: MetricSpec[];
  run: (h: Harness) => Promise<RepOutcome>;
};
