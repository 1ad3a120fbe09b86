// One page of the uninstall pass's targets, claimed and grouped into per-project, per-provider
// batches. Only installs this pass can push are claimed (a project with no credentials for the
// token's provider is skipped and left to nobody), in one UPDATE for the page: two passes of one
// day (`uninstalls run` beside the worker's) read the same targets, and the claim lets one of them
// send each. An install another pass claimed is `held`: that pass sends it, or, if it stopped, its
// claim lapses after PUSH_CLAIM_MINUTES and a later pass sends it (run-uninstall-pass.ts waits).
import type { Deps } from '../../deps.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { claimPushTargets, type PushTargetRow, pushKey } from '../../store/postgres/push-state.ts';
import { type ProjectSenders, type PushSender, type PushTarget, providerOfToken } from './push-sender.ts';

/**
 * Longer than a page takes at worst: 16 batches, 8 at a time, each of 500 sends 32 (FCM) at a
 * time that all run into the senders' 10 s timeout is about 6 minutes.
 */
export const PUSH_CLAIM_MINUTES = 10;

export type Batch = { project: Project; sender: PushSender; targets: PushTarget[] };
export type ProjectCtx = { project: Project; senders: ProjectSenders } | undefined;
export type ClaimedPage = { batches: Batch[]; skipped: number; held: number };

type Sendable = { row: PushTargetRow; project: Project; sender: PushSender };

export async function claimPushPage(
  deps: Pick<Deps, 'sql'>,
  page: readonly PushTargetRow[],
  ctxOf: (projectId: string) => Promise<ProjectCtx>,
  opts: { day: string; batchSize: number },
): Promise<ClaimedPage> {
  let skipped = 0;
  let held = 0;
  const free: Sendable[] = [];
  for (const row of page) {
    const ctx = await ctxOf(row.projectId);
    const sender = ctx?.senders[providerOfToken(row.token)];
    if (!ctx || !sender) {
      skipped += 1;
    } else if (row.held) {
      held += 1;
    } else {
      free.push({ row, project: ctx.project, sender });
    }
  }
  const claimed = await claimPushTargets(
    deps.sql,
    free.map((s) => s.row),
    opts.day,
    PUSH_CLAIM_MINUTES,
  );
  const mine = free.filter((s) => claimed.has(pushKey(s.row.projectId, s.row.installInstanceId)));
  return { batches: toBatches(mine, opts.batchSize), skipped, held: held + free.length - mine.length };
}

function toBatches(items: readonly Sendable[], batchSize: number): Batch[] {
  const out: Batch[] = [];
  const open = new Map<string, Batch>();
  for (const { row, project, sender } of items) {
    const key = `${row.projectId}|${sender.provider}`;
    let b = open.get(key);
    if (!b) {
      b = { project, sender, targets: [] };
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
