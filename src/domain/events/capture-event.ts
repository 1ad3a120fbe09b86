// capture-event: a custom event of a user registered through trigger (Rule 1), written to the
// outbox as an `events` fact in the same transaction that claims its event_id, so a repeated
// event_id (an SDK retry, or 20 concurrent sends) stores one fact. An event of an unregistered
// user is not stored and does not claim its event_id (a retry after trigger is stored).
// Revenue (Rule 2): event_data.amount when it is a JSON number from 0 to 1e28; a string ("12"),
// a negative number or 1e309 (parsed as Infinity) stays in event_data but is not revenue.
import type { Deps } from '../../deps.ts';
import { randomCode } from '../../lib/ids.ts';
import { revenueAmount } from '../../lib/money.ts';
import { formatChTime, localDay } from '../../lib/time.ts';
import { insertSeenEventId } from '../../store/postgres/events.ts';
import { insertOutboxRows } from '../../store/postgres/fact-outbox.ts';
import { asSql, beginPipelined, type Tx } from '../../store/postgres/pool.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { queueDeliveries } from '../deliveries/queue-deliveries.ts';
import { recordSkanActivity } from '../skan/record-skan-activity.ts';
import { undoUninstall } from '../uninstalls/undo-uninstall.ts';
import { type RegisteredUser, resolveRegisteredUser, senderNeeds } from './resolve-registered-user.ts';

export type CaptureEventInput = {
  /** The sending install; null from the server-side twin (the user's registering install is used). */
  installInstanceId: string | null;
  platform: string;
  userId: string | null;
  eventName: string;
  eventData: Record<string, unknown> | null;
  eventId: string | null;
};

export type CaptureOutcome = 'stored' | 'duplicate' | 'unregistered';

function eventRow(project: Project, user: RegisteredUser, input: CaptureEventInput, factId: string, now: number) {
  const amount = revenueAmount(input.eventData?.amount);
  return {
    event_id: factId,
    project_id: project.id,
    install_instance_id: user.installInstanceId,
    user_id: user.userId,
    event_name: input.eventName,
    ts: formatChTime(now),
    project_tz: project.timezone,
    day: localDay(now, project.timezone),
    platform: user.platform,
    amount: amount ?? '0',
    has_amount: amount === undefined ? 0 : 1,
    event_data: JSON.stringify(input.eventData ?? {}),
  };
}

export async function captureEvent(
  deps: Pick<Deps, 'sql' | 'now'>,
  project: Project,
  input: CaptureEventInput,
): Promise<CaptureOutcome> {
  const user = await resolveRegisteredUser(deps, project.id, input);
  if (!user) {
    return 'unregistered';
  }
  const now = deps.now();
  const factId = input.eventId ?? `ev_${randomCode(20)}`;
  const row = eventRow(project, user, input, factId, now);
  const needs = senderNeeds(user);
  const store = async (txh: Tx): Promise<CaptureOutcome> => {
    const tx = asSql(txh);
    if (input.eventId !== null && !(await insertSeenEventId(tx, project.id, input.eventId))) {
      return 'duplicate';
    }
    await insertOutboxRows(tx, [
      { table: 'events', factId, projectId: project.id, row, enrichInstall: user.installInstanceId },
    ]);
    await queueDeliveries(tx, {
      kind: 'event',
      projectId: project.id,
      installInstanceId: user.installInstanceId,
      userId: user.userId,
      occurredAtMs: now,
      factId,
      eventName: input.eventName,
      eventData: input.eventData,
    });
    // SKAN values and uninstall state belong to the device that sent it (server-side: the user's install).
    const sender = input.installInstanceId ?? user.installInstanceId;
    if (needs.skan) {
      await recordSkanActivity(
        tx,
        project.id,
        sender,
        { kind: 'event', name: input.eventName, amount: row.amount },
        now,
      );
    }
    if (needs.undoUninstall) {
      await undoUninstall(tx, project, sender, now);
    }
    return 'stored';
  };
  // SKAN counters are read, re-evaluated and written back, so only a body without them may share a
  // pipeline with other requests' bodies (the claim, outbox, delivery and undo rows are single
  // atomic statements).
  return needs.skan ? deps.sql.begin(store) : beginPipelined(deps.sql, store);
}
