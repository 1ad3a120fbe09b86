// The daily uninstall-tracking pass: one silent push to every install with a push token that is not
// uninstalled and not yet pushed today (a rerun of the same day continues where it stopped). It
// pages through installs by keyset (project, install id), groups each page into per-project,
// per-provider batches, sends up to `concurrency` batches at once and records each batch's results
// as it returns, logging progress. Projects without credentials for a token's provider are skipped.
import type { Deps } from '../../deps.ts';
import { findProjectById, type Project } from '../../store/postgres/projects.ts';
import { listPushTargets, type PushCursor, type PushTargetRow } from '../../store/postgres/push-state.ts';
import {
  type ProjectSenders,
  type PushResult,
  type PushSender,
  type PushTarget,
  providerOfToken,
  type SenderFactory,
} from './push-sender.ts';
import { type BatchTally, recordPushResults } from './record-push-results.ts';

export type PassOptions = { batchSize?: number; concurrency?: number; progressEveryMs?: number };
export type PassTally = BatchTally & { targets: number; skipped: number; batches: number; ms: number };

type Batch = { project: Project; sender: PushSender; targets: PushTarget[] };
type ProjectCtx = { project: Project; senders: ProjectSenders } | undefined;

export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

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
  const batchSize = opts.batchSize ?? 500;
  const concurrency = opts.concurrency ?? 8;
  const started = deps.now();
  const day = utcDay(started);
  const tally: PassTally = {
    targets: 0,
    skipped: 0,
    batches: 0,
    ms: 0,
    delivered: 0,
    unregistered: 0,
    errors: 0,
    uninstalled: 0,
  };
  const projects = new Map<string, ProjectCtx>();
  const ctxOf = async (projectId: string): Promise<ProjectCtx> => {
    if (!projects.has(projectId)) {
      const project = await findProjectById(deps.sql, projectId);
      projects.set(projectId, project ? { project, senders: await senderFor(projectId) } : undefined);
    }
    return projects.get(projectId);
  };
  let cursor: PushCursor | null = null;
  let lastLog = started;
  for (;;) {
    const page = await listPushTargets(deps.sql, cursor, day, batchSize * concurrency * 2);
    const last = page.at(-1);
    if (!last) {
      break;
    }
    cursor = { projectId: last.projectId, installInstanceId: last.installInstanceId };
    const batches = await toBatches(page, ctxOf, batchSize, tally);
    await mapLimit(batches, concurrency, async (b) => {
      const results = await sendSafely(b.sender, b.targets);
      const t = await recordPushResults(deps, b.project, b.sender.provider, {
        targets: b.targets,
        results,
        day,
        nowMs: deps.now(),
      });
      tally.batches += 1;
      tally.delivered += t.delivered;
      tally.unregistered += t.unregistered;
      tally.errors += t.errors;
      tally.uninstalled += t.uninstalled;
    });
    tally.targets += page.length;
    if (deps.now() - lastLog >= (opts.progressEveryMs ?? 10_000)) {
      lastLog = deps.now();
      deps.log.info({ day, ...tally, ms: lastLog - started }, 'uninstall pass progress');
    }
  }
  tally.ms = deps.now() - started;
  deps.log.info({ day, ...tally }, 'uninstall pass done');
  return tally;
}

async function toBatches(
  page: readonly PushTargetRow[],
  ctxOf: (projectId: string) => Promise<ProjectCtx>,
  batchSize: number,
  tally: PassTally,
): Promise<Batch[]> {
  const out: Batch[] = [];
  const open = new Map<string, Batch>();
  for (const row of page) {
    const ctx = await ctxOf(row.projectId);
    const provider = providerOfToken(row.token);
    const sender = ctx?.senders[provider];
    if (!ctx || !sender) {
      tally.skipped += 1;
      continue;
    }
    const key = `${row.projectId}|${provider}`;
    let b = open.get(key);
    if (!b) {
      b = { project: ctx.project, sender, targets: [] };
      open.set(key, b);
      out.push(b);
    }
    b.targets.push({ installInstanceId: row.installInstanceId, token: row.token });
    if (b.targets.length >= batchSize) {
      open.delete(key);
    }
  }
  return out;
}
