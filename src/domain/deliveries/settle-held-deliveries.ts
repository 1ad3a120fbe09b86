// Claimed webhook rows still held for their install's attribution: their hour of waiting ended
// before a decision released them (release-held-deliveries.ts). None is sent in this batch. Each is
// settled in a transaction holding the install's row, so a decision in flight either committed
// before (the row is released as the decision would have: new id, after the install's own
// webhook, due at once; sending it in place put the sign-up first) or waits until the row is
// ended. A row whose install is still undecided is not sent with a made-up attribution: it ends
// dead with the reason, logged like an attempt and listed by `deliveries dead-letters`. It stays
// held, and a decision made later still releases it (it could not slip between the read and the
// ending: the row went dead, unsent for good, when a decision committed between them).
import type { Deps } from '../../deps.ts';
import type { Delivery } from '../../store/postgres/deliveries.ts';
import { finishDeliveries } from '../../store/postgres/deliveries.ts';
import { lockInstallRow } from '../../store/postgres/held-deliveries.ts';
import { asSql } from '../../store/postgres/pool.ts';
import { analyticsVendorOf } from '../analytics/vendors.ts';
import { logAttempt } from './log-attempt.ts';
import { releaseHeldDeliveries } from './release-held-deliveries.ts';

export const UNDECIDED_REASON = "not sent: the install's attribution was not decided within an hour";

/** The rows to send now and how many held ones ended dead (released ones go out in a later batch). */
export async function settleHeldDeliveries(
  deps: Pick<Deps, 'sql' | 'ch' | 'log'>,
  job: { projectId: string; destination: string },
  rows: Delivery[],
  nowMs: number,
): Promise<{ rows: Delivery[]; dead: number }> {
  const out: Delivery[] = [];
  const undecided: string[] = [];
  for (const row of rows) {
    if (!row.held) {
      out.push(row);
      continue;
    }
    const install = row.installInstanceId;
    const released = await deps.sql.begin(async (txh) => {
      const tx = asSql(txh);
      if (install) {
        await lockInstallRow(tx, row.projectId, install);
        if ((await releaseHeldDeliveries(tx, row.projectId, install, [row.id])) > 0) {
          return true;
        }
      }
      await finishDeliveries(tx, [row.id], 'dead', UNDECIDED_REASON, new Date(nowMs));
      return false;
    });
    if (!released) {
      undecided.push(row.id);
    }
  }
  if (undecided.length > 0) {
    const kind = analyticsVendorOf(job.destination) ? 'analytics delivery' : 'webhook';
    deps.log.warn(
      { destination: job.destination, deliveryIds: undecided },
      `${kind} held past its install attribution`,
    );
    await logAttempt(deps, {
      projectId: job.projectId,
      destination: job.destination,
      startedAtMs: nowMs,
      outcome: 'dead',
      httpStatus: 0,
      deliveryIds: undecided,
      latencyMs: 0,
      response: UNDECIDED_REASON,
    });
  }
  return { rows: out, dead: undecided.length };
}
