// The `payments` fact row (clickhouse/migrations/0006_create_payments.sql). A capture is sign 1; a
// removal repeats the capture's amount, time, day and payment_row with sign -1, so
// sum(amount * sign) nets out in every window. Attribution columns are filled by the writer: the
// capture's from its install (enrichInstall), the removal's copied from the capture as written
// (enrichFrom), so both land on one key.
import { newTimeId } from '../../lib/ids.ts';
import { formatChTime, localDay } from '../../lib/time.ts';
import type { OutboxRow } from '../../store/postgres/fact-outbox.ts';
import type { RemovedPayment } from '../../store/postgres/payments.ts';
import type { Project } from '../../store/postgres/projects.ts';

export type PaymentFact = {
  factId: string;
  paymentRow: string;
  paymentId: string | null;
  userId: string;
  installInstanceId: string;
  platform: string;
  type: string;
  status: string;
  amount: string;
  sign: 1 | -1;
  capturedAtMs: number;
  recordedAtMs: number;
};

export function paymentFactRow(project: Project, f: PaymentFact): Record<string, unknown> {
  return {
    event_id: f.factId,
    project_id: project.id,
    install_instance_id: f.installInstanceId,
    user_id: f.userId,
    payment_id: f.paymentId ?? '',
    payment_row: f.paymentRow,
    type: f.type,
    status: f.status,
    amount: f.amount,
    sign: f.sign,
    ts: formatChTime(f.capturedAtMs),
    recorded_at: formatChTime(f.recordedAtMs),
    project_tz: project.timezone,
    day: localDay(f.capturedAtMs, project.timezone),
    platform: f.platform,
  };
}

/**
 * A correction of a stored payment: a fact on the capture's payment_row, type, status, time and
 * day with `sign` and `amount` (a decimal string), naming the capture (enrichFrom) so the writer
 * lands it on the campaign the capture was written with. The install is kept for a capture
 * ClickHouse never took (the writer refuses the correction then, with the install's attribution).
 */
export function paymentCorrection(
  project: Project,
  p: RemovedPayment,
  correction: { sign: 1 | -1; amount: string },
  now: number,
): OutboxRow {
  const factId = `pay_${newTimeId()}`;
  const row = paymentFactRow(project, {
    factId,
    paymentRow: p.id,
    paymentId: p.paymentId,
    userId: p.userId,
    installInstanceId: p.installInstanceId,
    platform: p.platform,
    type: p.type,
    status: p.status,
    amount: correction.amount,
    sign: correction.sign,
    capturedAtMs: p.capturedAt.getTime(),
    recordedAtMs: now,
  });
  return {
    table: 'payments',
    factId,
    projectId: project.id,
    row,
    enrichInstall: p.installInstanceId,
    enrichFrom: p.factId,
  };
}
