// The daily uninstall-tracking pass: one silent push to every install with a push token that is not
// uninstalled and not yet pushed today (a rerun of the same day continues where it stopped). It
// pages through installs by keyset (project, install id), claims each page's installs and groups
// them into per-project, per-provider batches (claim-push-page.ts), sends up to `concurrency`
// batches at once and records each batch's results as it returns, logging progress. Projects
// without credentials for a token's provider are skipped.
// Two passes of one day (`uninstalls run` beside the worker's job) share the work: each sends only
// what it claimed. One that met installs another pass holds waits, at the end, until that pass has
// recorded them or, if it stopped, its claims lapsed (PUSH_CLAIM_MINUTES), then goes over that
// part once more and sends what is still due (also its own errors, given back to be retried).
import type { Deps } from '../../deps.ts';
import { findProjectById } from '../../store/postgres/projects.ts';
import { countHeldPushTargets, listPushTargets, type PushCursor } from '../../store/postgres/push-state.ts';
import { type Batch, claimPushPage, type ProjectCtx, PUSH_CLAIM_MINUTES } from './claim-push-page.ts';
import type { PushResult, PushSender, PushTarget, SenderFactory } from './push-sender.ts';
import { type BatchTally, recordPushResults } from './record-push-results.ts';

export type PassOptions = {
  batchSize?: number;
  concurrency?: number;
  progressEveryMs?: number;
  /** How often a pass waiting for another pass's installs checks them again (default 1 s). */
  heldPollMs?: number;
  /** Told once when the pass starts waiting for installs another pass holds (the CLI prints it). */
  onWait?: (held: number) => void;
};
/** targets, skipped and held count the installs as first read; held: another pass was sending them. */
export type PassTally = BatchTally & {
  targets: number;
  skipped: number;
  held: number;
  waitedMs: number;
  batches: number;
  ms: number;
};

type Pass = {
  deps: Pick<Deps, 'sql' | 'log' | 'now'>;
  opts: PassOptions;
  day: string;
  started: number;
  lastLog: number;
  tally: PassTally;
  projects: Map<string, ProjectCtx>;
  ctxOf: (projectId: string) => Promise<ProjectCtx>;
};

export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function mapLimit<T>(items: readonly T[], limit: number, fn: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

async function sendSafely(sender: PushSender, targets: readonly PushTarget[]): Promise<PushResult[]> {
  try {
    return await sender.send(targets);
  } catch {
    return targets.map(() => 'error');
  }
}

export async function runUninstallPass(
  deps: Pick<Deps, 'sql' | 'log' | 'now'>,
  senderFor: SenderFactory,
  opts: PassOptions = {},
): Promise<PassTally> {
  const started = deps.now();
  const projects = new Map<string, ProjectCtx>();
  const pass: Pass = {
    deps,
    opts,
    day: utcDay(started),
    started,
    lastLog: started,
    tally: {
      targets: 0,
      skipped: 0,
      held: 0,
      waitedMs: 0,
      batches: 0,
      ms: 0,
      delivered: 0,
      unregistered: 0,
      errors: 0,
      uninstalled: 0,
    },
    projects,
    ctxOf: async (projectId) => {
      if (!projects.has(projectId)) {
        const project = await findProjectById(deps.sql, projectId);
        projects.set(projectId, project ? { project, senders: await senderFor(projectId) } : undefined);
      }
      return projects.get(projectId);
    },
  };
  const heldFrom = await sweep(pass, null, true);
  if (heldFrom !== undefined) {
    await waitForHeld(pass, heldFrom);
    await sweep(pass, heldFrom, false);
  }
  pass.tally.ms = deps.now() - started;
  deps.log.info({ day: pass.day, ...pass.tally }, 'uninstall pass done');
  return pass.tally;
}

/** Pages from `from` to the end; answers the cursor before the first page with held installs. */
async function sweep(pass: Pass, from: PushCursor | null, first: boolean): Promise<PushCursor | null | undefined> {
  const { deps, tally } = pass;
  const batchSize = pass.opts.batchSize ?? 500;
  const concurrency = pass.opts.concurrency ?? 8;
  let cursor = from;
  let heldFrom: PushCursor | null | undefined;
  for (;;) {
    const page = await listPushTargets(deps.sql, cursor, pass.day, batchSize * concurrency * 2);
    const last = page.at(-1);
    if (!last) {
      return heldFrom;
    }
    const claimed = await claimPushPage(deps, page, pass.ctxOf, { day: pass.day, batchSize });
    if (claimed.held > 0 && heldFrom === undefined) {
      heldFrom = cursor;
    }
    cursor = { projectId: last.projectId, installInstanceId: last.installInstanceId };
    if (first) {
      tally.targets += page.length;
      tally.skipped += claimed.skipped;
      tally.held += claimed.held;
    }
    await mapLimit(claimed.batches, concurrency, (b) => sendAndRecord(pass, b));
    if (deps.now() - pass.lastLog >= (pass.opts.progressEveryMs ?? 10_000)) {
      pass.lastLog = deps.now();
      deps.log.info({ day: pass.day, ...tally, ms: pass.lastLog - pass.started }, 'uninstall pass progress');
    }
  }
}

async function sendAndRecord(pass: Pass, b: Batch): Promise<void> {
  const results = await sendSafely(b.sender, b.targets);
  const t = await recordPushResults(pass.deps, b.project, b.sender.provider, {
    targets: b.targets,
    results,
    day: pass.day,
    nowMs: pass.deps.now(),
  });
  pass.tally.batches += 1;
  pass.tally.delivered += t.delivered;
  pass.tally.unregistered += t.unregistered;
  pass.tally.errors += t.errors;
  pass.tally.uninstalled += t.uninstalled;
}

/**
 * Until no install after `from` of a project this pass can push is held by another pass: that pass
 * records them, or its claims lapse. Real time (deps.now may be a simulated day), at most the lease
 * and a minute: a stopped pass's claims have lapsed by then, and what a pass still sending after
 * that holds is its own to record.
 */
async function waitForHeld(pass: Pass, from: PushCursor | null): Promise<void> {
  const projectIds = [...pass.projects]
    .filter(([, c]) => c?.senders.FCM !== undefined || c?.senders.APNS !== undefined)
    .map(([id]) => id);
  const t0 = performance.now();
  const deadline = t0 + (PUSH_CLAIM_MINUTES + 1) * 60_000;
  let held = await countHeldPushTargets(pass.deps.sql, from, pass.day, projectIds);
  if (held > 0) {
    pass.deps.log.info({ day: pass.day, held }, 'uninstall pass waiting for installs another pass is sending');
    pass.opts.onWait?.(held);
  }
  while (held > 0 && performance.now() < deadline) {
    await sleep(pass.opts.heldPollMs ?? 1000);
    held = await countHeldPushTargets(pass.deps.sql, from, pass.day, projectIds);
  }
  pass.tally.waitedMs += Math.round(performance.now() - t0);
}
