// Claimed webhook rows still held for their install's attribution: their hour of waiting ended
// before a decision released them (release-held-deliveries.ts). An install decided meanwhile (a
// replayed dead row, or a release that skipped a leased row) gets its campaign fields now and is
// sent; one still undecided is not sent with a made-up attribution: the row ends dead with the
// reason, logged like an attempt and listed by `deliveries dead-letters`. It stays held: a decision
// made later still releases it (release-held-deliveries.ts), after the install's own webhook.
import type { Deps } from '../../deps.ts';
import type { Delivery } from '../../store/postgres/deliveries.ts';
import { finishDeliveries } from '../../store/postgres/deliveries.ts';
import { findDeliveryContext } from '../../store/postgres/delivery-context.ts';
import { fillHeldRow } from '../../store/postgres/held-deliveries.ts';
import { logAttempt } from './log-attempt.ts';
import { webhookAttribution } from './webhook-body.ts';

export const UNDECIDED_REASON = "not sent: the install's attribution was not decided within an hour";

/** The rows to send (held ones filled); rows of undecided installs are ended dead. */
export async function settleHeldDeliveries(
  deps: Pick<Deps, 'sql' | 'ch' | 'log'>,
  job: { projectId: string; destination: string },
  rows: Delivery[],
  nowMs: number,
): Promise<Delivery[]> {
  const out: Delivery[] = [];
  const undecided: string[] = [];
  for (const row of rows) {
    if (!row.held) {
      out.push(row);
      continue;
    }
    const ctx = row.installInstanceId
      ? await findDeliveryContext(deps.sql, row.projectId, row.installInstanceId, null)
      : undefined;
    if (ctx?.attributionStatus === 'decided') {
      const attribution = webhookAttribution(ctx);
      await fillHeldRow(deps.sql, row.id, attribution);
      out.push({ ...row, held: false, payload: { ...row.payload, ...attribution } });
    } else {
      undecided.push(row.id);
    }
  }
  if (undecided.length > 0) {
    await finishDeliveries(deps.sql, undecided, 'dead', UNDECIDED_REASON, new Date(nowMs));
    deps.log.warn(
      { destination: job.destination, deliveryIds: undecided },
      'webhook held past its install attribution',
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
  return out;
}
