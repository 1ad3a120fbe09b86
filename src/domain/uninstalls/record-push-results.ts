// Applies one batch's push results to the installs' uninstall state. delivered resets the count of
// failed days; unregistered adds one (at most once per UTC day); the third consecutive failed day
// marks the install uninstalled and writes its `uninstalls` fact in the same transaction (the
// writer adds the install's campaign). error changes nothing but gives the install's claim back
// (claim-push-page.ts), so a later pass of the day tries it again. A result counts only for an
// install that still holds the token it was sent to; one whose token changed is given back too.
import type { Deps } from '../../deps.ts';
import { newTimeId } from '../../lib/ids.ts';
import { formatChTime, localDay } from '../../lib/time.ts';
import { insertOutboxRows } from '../../store/postgres/fact-outbox.ts';
import { asSql } from '../../store/postgres/pool.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { markPushDelivered, markPushFailed, releasePushClaims } from '../../store/postgres/push-state.ts';
import type { PushProvider, PushResult, PushTarget } from './push-sender.ts';

export const UNINSTALL_AFTER_FAILED_DAYS = 3;

export type BatchTally = { delivered: number; unregistered: number; errors: number; uninstalled: number };

export async function recordPushResults(
  deps: Pick<Deps, 'sql'>,
  project: Pick<Project, 'id' | 'timezone'>,
  provider: PushProvider,
  batch: { targets: readonly PushTarget[]; results: readonly PushResult[]; day: string; nowMs: number },
): Promise<BatchTally> {
  const delivered: PushTarget[] = [];
  const failed: PushTarget[] = [];
  const giveBack: string[] = [];
  batch.targets.forEach((t, i) => {
    const r = batch.results[i] ?? 'error';
    if (r === 'delivered') {
      delivered.push(t);
    } else if (r === 'unregistered') {
      failed.push(t);
    } else {
      giveBack.push(t.installInstanceId);
    }
  });
  const at = new Date(batch.nowMs);
  const updated = new Set(await markPushDelivered(deps.sql, project.id, delivered, batch.day, at));
  const uninstalled = await deps.sql.begin(async (txh) => {
    const tx = asSql(txh);
    const marked = await markPushFailed(tx, project.id, failed, batch.day, at, UNINSTALL_AFTER_FAILED_DAYS);
    for (const iid of marked.updated) {
      updated.add(iid);
    }
    const rows = marked.gone.map((g) => {
      const factId = `un_${newTimeId()}`;
      return {
        table: 'uninstalls' as const,
        factId,
        projectId: project.id,
        enrichInstall: g.installInstanceId,
        row: {
          event_id: factId,
          project_id: project.id,
          install_instance_id: g.installInstanceId,
          ts: formatChTime(batch.nowMs),
          project_tz: project.timezone,
          day: localDay(batch.nowMs, project.timezone),
          platform: g.platform,
          provider,
          failed_days: g.failures,
        },
      };
    });
    if (rows.length > 0) {
      await insertOutboxRows(tx, rows);
    }
    return rows.length;
  });
  // Answers that updated nothing: the install's token changed while its push was in flight.
  for (const t of [...delivered, ...failed]) {
    if (!updated.has(t.installInstanceId)) {
      giveBack.push(t.installInstanceId);
    }
  }
  // A statement only for a batch with errors or changed tokens (rare but in a push service outage).
  await releasePushClaims(deps.sql, project.id, giveBack);
  return {
    delivered: delivered.length,
    unregistered: failed.length,
    errors: batch.targets.length - delivered.length - failed.length,
    uninstalled,
  };
}
