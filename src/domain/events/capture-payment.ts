// capture-payment: revenue of a user registered through trigger (Rule 3). The payments row and its
// `payments` fact (sign 1) are written in one transaction, and only when the insert returned a row:
// a repeated payment_id (Rule 4, also under concurrent sends, also after a removal) stores nothing.
// The dedupe key is (project, payment_id), as the spec says; the docs' (type, payment_id) is not
// used. A payment without an id (absent or "") is never deduplicated. A payment of an unregistered
// user stores nothing (nor of one deleted between the lookup and the insert, which reads the user
// again); from an install marked uninstalled it still undoes the uninstall.
import type { Deps } from '../../deps.ts';
import { newTimeId } from '../../lib/ids.ts';
import { insertOutboxRows } from '../../store/postgres/fact-outbox.ts';
import { insertPayment } from '../../store/postgres/payments.ts';
import { asSql, beginPipelined, type Tx } from '../../store/postgres/pool.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { queueDeliveries } from '../deliveries/queue-deliveries.ts';
import { recordSkanActivity } from '../skan/record-skan-activity.ts';
import { isSkanRevenue } from '../skan/skan-revenue.ts';
import { undoUninstall } from '../uninstalls/undo-uninstall.ts';
import { undoUninstallAlone } from '../uninstalls/undo-uninstall-alone.ts';
import type { CaptureOutcome } from './capture-event.ts';
import { paymentFactRow } from './payment-fact.ts';
import { resolveRegisteredUser, senderNeeds } from './resolve-registered-user.ts';

// spec Rules 5 and 6, exact and case-sensitive.
export const PAYMENT_TYPES = [
  'FIRST_PAYMENT',
  'SECOND_PAYMENT',
  'ONE_TIME',
  'RECURRING',
  'WALLET_TOPUP',
  'FUNDS_WITHDRAWAL',
  'SUBSCRIPTION_CREATED',
  'SUBSCRIPTION_RENEWED',
  'SUBSCRIPTION_CANCELLED',
  'SUBSCRIPTION_REFUNDED',
  'SUBSCRIPTION_BILLING_ISSUE',
  'DEFAULT',
] as const;
export const PAYMENT_STATUSES = [
  'PAYMENT_INITIATED',
  'PAYMENT_COMPLETED',
  'PAYMENT_FAILED',
  'PAYMENT_CANCELLED',
] as const;
export type PaymentType = (typeof PAYMENT_TYPES)[number];
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export type CapturePaymentInput = {
  /** The sending install; null from the server-side twin (the user's registering install is used). */
  installInstanceId: string | null;
  platform: string;
  userId: string | null;
  paymentId: string | null;
  /** Decimal string, 0 to 1e20, at most 9 decimals. */
  amount: string;
  type: PaymentType;
  status: PaymentStatus;
  /** Commerce fields forwarded with a mapped Purchase (content_ids, contents, order_id, …). */
  eventData?: Record<string, unknown> | null;
};

export async function capturePayment(
  deps: Pick<Deps, 'sql' | 'now'>,
  project: Project,
  input: CapturePaymentInput,
): Promise<CaptureOutcome> {
  const found = await resolveRegisteredUser(deps, project.id, input);
  if (!found.user) {
    if (found.uninstalledSender) {
      await undoUninstallAlone(deps, project, found.uninstalledSender);
    }
    return 'unregistered';
  }
  const user = found.user;
  const now = deps.now();
  const factId = `pay_${newTimeId()}`;
  const needs = senderNeeds(user);
  const skan = needs.skan && isSkanRevenue(input.type, input.status);
  const store = async (txh: Tx): Promise<CaptureOutcome> => {
    const tx = asSql(txh);
    const inserted = await insertPayment(tx, {
      projectId: project.id,
      paymentId: input.paymentId,
      userId: user.userId,
      installInstanceId: user.installInstanceId,
      type: input.type,
      status: input.status,
      amount: input.amount,
      factId,
      capturedAt: new Date(now),
    });
    const sender = input.installInstanceId ?? user.installInstanceId;
    if (needs.undoUninstall) {
      // A repeated payment_id still comes from the device: the app is back (README Uninstall tracking).
      await undoUninstall(tx, project, sender, now);
    }
    if (typeof inserted === 'string') {
      // 'unregistered': a GDPR deletion of the user committed since it was resolved.
      return inserted;
    }
    const row = paymentFactRow(project, {
      factId,
      paymentRow: inserted.id,
      paymentId: input.paymentId,
      userId: user.userId,
      installInstanceId: user.installInstanceId,
      platform: user.platform,
      type: input.type,
      status: input.status,
      amount: input.amount,
      sign: 1,
      capturedAtMs: now,
      recordedAtMs: now,
    });
    await insertOutboxRows(tx, [
      { table: 'payments', factId, projectId: project.id, row, enrichInstall: user.installInstanceId },
    ]);
    // A Purchase is a completed capture (never a removal, nor a failed or pending payment).
    if (input.status === 'PAYMENT_COMPLETED') {
      await queueDeliveries(tx, {
        kind: 'payment',
        projectId: project.id,
        installInstanceId: user.installInstanceId,
        userId: user.userId,
        occurredAtMs: now,
        factId,
        paymentType: input.type,
        paymentId: input.paymentId,
        amount: input.amount,
        currency: project.displayCurrency,
        eventData: input.eventData ?? null,
      });
    }
    if (skan) {
      await recordSkanActivity(tx, project.id, sender, { kind: 'revenue', name: '', amount: input.amount }, now);
    }
    return 'stored';
  };
  // As in capture-event: only a body without SKAN's read-and-write-back may share a pipeline.
  return skan ? deps.sql.begin(store) : beginPipelined(deps.sql, store);
}
