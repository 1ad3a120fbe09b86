// Enqueue helpers with deterministic job ids, so a repeated enqueue of the same work is dropped.
import { createHash } from 'node:crypto';
import type { Deps } from '../deps.ts';
import { QUEUES } from './names.ts';
import type { AttributeInstallPayload, UninstallPassPayload } from './payloads.ts';

/**
 * One attribution job per install. A `retryRound` (the reconciler's minute) makes a new job id, so
 * the reconciler's enqueue is never dropped as a repeat of a job still waiting or running (finished
 * attribution jobs are removed at once: names.ts); a second run of a decided install is a no-op.
 */
export async function enqueueAttribution(
  deps: Pick<Deps, 'queue'>,
  projectId: string,
  installInstanceId: string,
  retryRound?: number,
): Promise<void> {
  const { payload, jobId } = attributionJob(projectId, installInstanceId, retryRound);
  await deps.queue.enqueue(QUEUES.attribution, payload, jobId);
}

/** As enqueueAttribution, for a committed install: held and retried while the queue is away. */
export async function enqueueAttributionOrHold(
  deps: Pick<Deps, 'queue'>,
  projectId: string,
  installInstanceId: string,
): Promise<void> {
  const { payload, jobId } = attributionJob(projectId, installInstanceId);
  await deps.queue.enqueueOrHold(QUEUES.attribution, payload, jobId);
}

/**
 * Removes the install's attribution job unless it is running (GDPR deletion). Jobs of the
 * reconciler's rounds are not known by id; they only exist while the install is pending, and one
 * that runs after the deletion finds no install and is removed when it ends (names.ts).
 */
export async function discardAttribution(deps: Pick<Deps, 'queue'>, projectId: string, installInstanceId: string) {
  await deps.queue.discard(QUEUES.attribution, attributionJob(projectId, installInstanceId).jobId);
}

function attributionJob(projectId: string, installInstanceId: string, retryRound?: number) {
  const payload: AttributeInstallPayload = { projectId, installInstanceId };
  const round = retryRound === undefined ? '' : `-r${retryRound}`;
  return { payload, jobId: `attr-${projectId}-${idPart(installInstanceId)}${round}` };
}

/** BullMQ refuses ':' in custom ids; client-sent ids are hashed into a safe, fixed-size part. */
function idPart(value: string): string {
  return createHash('sha256').update(value).digest('base64url').slice(0, 22);
}

/** One uninstall-tracking pass per UTC day (the cron fires in every worker process; one job runs). */
export async function enqueueUninstallPass(deps: Pick<Deps, 'queue'>, tickMs: number): Promise<void> {
  const payload: UninstallPassPayload = { day: new Date(tickMs).toISOString().slice(0, 10) };
  await deps.queue.enqueue(QUEUES.uninstallPass, payload, `uninstall-pass-${payload.day}`);
}
