// capture-event: a custom event of a user registered through trigger (Rule 1), written to the
// outbox as an `events` fact in the same transaction that claims its event_id, so a repeated
// event_id (an SDK retry, or 20 concurrent sends) stores one fact. An event of an unregistered
// user is not stored and does not claim its event_id (a retry after trigger is stored); from an
// install marked uninstalled it still undoes the uninstall (the app is back on the device).
// Revenue (Rule 2): event_data.amount when it is a JSON number from 0 to 1e20; a string ("12"),
// a negative number or 1e309 (parsed as Infinity) stays in event_data but is not revenue.
// Events that arrive while earlier ones are being stored are stored together (lib/micro-batch.ts):
// one transaction claims their event_ids in one statement and writes their outbox rows in another,
// and each request is still answered with its own outcome once that transaction has committed.
import type { Deps } from '../../deps.ts';
import { newTimeId } from '../../lib/ids.ts';
import { BatchItemsFailed, batcherPerOwner, settleAll } from '../../lib/micro-batch.ts';
import { revenueAmount } from '../../lib/money.ts';
import { formatChTime, localDay } from '../../lib/time.ts';
import { insertEventFacts, insertSeenEventIds, seenEventKey } from '../../store/postgres/events.ts';
import { asSql, beginPipelined, type Sql, type Tx } from '../../store/postgres/pool.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { queueDeliveries } from '../deliveries/queue-deliveries.ts';
import { recordSkanActivity } from '../skan/record-skan-activity.ts';
import { undoUninstall } from '../uninstalls/undo-uninstall.ts';
import { undoUninstallAlone } from '../uninstalls/undo-uninstall-alone.ts';
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

type PendingEvent = {
  project: Project;
  input: CaptureEventInput;
  user: RegisteredUser;
  factId: string;
  row: ReturnType<typeof eventRow>;
  now: number;
};

/** Claims the batch's event_ids (the first of a repeated id in the batch wins), stores the rest. */
async function storeEvents(tx: Sql, items: PendingEvent[]): Promise<CaptureOutcome[]> {
  const asked = items.flatMap((e) =>
    e.input.eventId === null ? [] : [{ projectId: e.project.id, eventId: e.input.eventId }],
  );
  const claimed = await insertSeenEventIds(tx, asked);
  const outcomes = items.map((e): CaptureOutcome => {
    if (e.input.eventId === null) {
      return 'stored';
    }
    // delete: a second event with the same id in this batch finds the claim taken
    return claimed.delete(seenEventKey(e.project.id, e.input.eventId)) ? 'stored' : 'duplicate';
  });
  const claimedAt = items.flatMap((_, i) => (outcomes[i] === 'stored' ? [i] : []));
  const notWritten = await insertEventFacts(
    tx,
    claimedAt.map((i) => {
      const e = items[i] as PendingEvent;
      return {
        factId: e.factId,
        projectId: e.project.id,
        userId: e.user.userId,
        row: e.row,
        enrichInstall: e.user.installInstanceId,
      };
    }),
  );
  // The user was deleted (GDPR) since it was resolved: nothing is stored. Its event_id stays
  // claimed, as the deletion leaves seen_event_ids: a re-sent event does not bring it back.
  for (const k of notWritten) {
    outcomes[claimedAt[k] as number] = 'unregistered';
  }
  const stored = items.filter((_, i) => outcomes[i] === 'stored');
  await settleAll(
    stored.map((e) =>
      queueDeliveries(tx, {
        kind: 'event',
        projectId: e.project.id,
        installInstanceId: e.user.installInstanceId,
        userId: e.user.userId,
        occurredAtMs: e.now,
        factId: e.factId,
        eventName: e.input.eventName,
        eventData: e.input.eventData,
      }),
    ),
  );
  // SKAN values and uninstall state belong to the device that sent it (server-side: the user's
  // install). SKAN counters are read and written back, so these run one after another. A repeated
  // event_id counts no SKAN activity but still undoes an uninstall: the device sent it.
  for (const [i, e] of items.entries()) {
    const sender = e.input.installInstanceId ?? e.user.installInstanceId;
    const needs = senderNeeds(e.user);
    if (needs.skan && outcomes[i] === 'stored') {
      const activity = { kind: 'event' as const, name: e.input.eventName, amount: e.row.amount };
      await recordSkanActivity(tx, e.project.id, sender, activity, e.now);
    }
    if (needs.undoUninstall) {
      await undoUninstall(tx, e.project, sender, e.now);
    }
  }
  return outcomes;
}

/** One transaction for the batch; a failure inside it (not at COMMIT) re-runs each event alone. */
function storeEventBatch(sql: Sql, items: PendingEvent[]): Promise<CaptureOutcome[]> {
  const work = async (txh: Tx) => {
    try {
      return await storeEvents(asSql(txh), items);
    } catch (err) {
      throw items.length > 1 ? new BatchItemsFailed(err) : err;
    }
  };
  // Only a batch without SKAN's read-and-write-back may share a pipeline with other bodies.
  return items.some((e) => senderNeeds(e.user).skan) ? sql.begin(work) : beginPipelined(sql, work);
}

/** Batches of up to 200 events, two in flight, per pool (one pool per process). */
const eventBatcher = batcherPerOwner((sql: Sql) => ({
  lanes: 2,
  maxItems: 200,
  run: (items: PendingEvent[]) => storeEventBatch(sql, items),
}));

export async function captureEvent(
  deps: Pick<Deps, 'sql' | 'now'>,
  project: Project,
  input: CaptureEventInput,
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
  const factId = input.eventId ?? `ev_${newTimeId()}`;
  const row = eventRow(project, user, input, factId, now);
  return eventBatcher(deps.sql)({ project, input, user, factId, row, now });
}
