// capture-web-event: one Web SDK event becomes a web_events fact in the outbox, in the same
// transaction that claims its event_id, so the 2xx means it is durable and a repeat of the id
// (the SDK's fetch, then beacon or XHR fallback, a first-party host's retry on our default one)
// stores nothing more. Web events belong to a browser, not to an install or a registered user:
// nothing is looked up and capture-event's "user not registered" rule does not apply.
// The claims have their own table (seen_web_event_ids), apart from capture-event's, so an app event
// and a web event never shadow each other, whatever their ids, and the public token cannot claim
// an app's ids. Events arriving together are stored together (lib/micro-batch.ts), as
// capture-event's are.
import type { Deps } from '../../deps.ts';
import { newTimeId } from '../../lib/ids.ts';
import { BatchItemsFailed, batcherPerOwner } from '../../lib/micro-batch.ts';
import { formatChTime, localDay } from '../../lib/time.ts';
import { insertSeenWebEventIds, seenEventKey } from '../../store/postgres/events.ts';
import { insertOutboxRows } from '../../store/postgres/fact-outbox.ts';
import { asSql, beginPipelined, type Sql, type Tx } from '../../store/postgres/pool.ts';
import type { Project } from '../../store/postgres/projects.ts';
import type { FactTable } from '../facts/tables.ts';
import type { WebEventInput } from './web-event.ts';

export type WebCaptureOutcome = 'stored' | 'duplicate';

export const WEB_EVENTS_TABLE: FactTable = 'web_events';

function webEventRow(project: Project, input: WebEventInput, ip: string, factId: string, now: number) {
  const { platform, ...text } = input.text;
  return {
    event_id: factId,
    project_id: project.id,
    ts: formatChTime(now),
    project_tz: project.timezone,
    day: localDay(now, project.timezone),
    client_ts: formatChTime(input.clientTsMs ?? 0),
    event_type: input.eventType,
    ...text,
    navigator_platform: platform ?? '',
    ...input.numbers,
    ip,
  };
}

type PendingWebEvent = { projectId: string; eventId: string | null; factId: string; row: Record<string, unknown> };

async function storeWebEvents(tx: Sql, items: PendingWebEvent[]): Promise<WebCaptureOutcome[]> {
  const asked = items.flatMap((e) => (e.eventId === null ? [] : [{ projectId: e.projectId, eventId: e.eventId }]));
  const claimed = await insertSeenWebEventIds(tx, asked);
  // delete: a second event with the same id in this batch finds the claim taken
  const outcomes = items.map(
    (e): WebCaptureOutcome =>
      e.eventId === null || claimed.delete(seenEventKey(e.projectId, e.eventId)) ? 'stored' : 'duplicate',
  );
  await insertOutboxRows(
    tx,
    items
      .filter((_, i) => outcomes[i] === 'stored')
      .map((e) => ({ table: WEB_EVENTS_TABLE, factId: e.factId, projectId: e.projectId, row: e.row })),
  );
  return outcomes;
}

/** One transaction for the batch; a failure inside it (not at COMMIT) re-runs each event alone. */
function storeWebEventBatch(sql: Sql, items: PendingWebEvent[]): Promise<WebCaptureOutcome[]> {
  return beginPipelined(sql, async (txh: Tx) => {
    try {
      return await storeWebEvents(asSql(txh), items);
    } catch (err) {
      throw items.length > 1 ? new BatchItemsFailed(err) : err;
    }
  });
}

/** Batches of up to 200 events, two in flight, per pool (one pool per process). */
const webEventBatcher = batcherPerOwner((sql: Sql) => ({
  lanes: 2,
  maxItems: 200,
  run: (items: PendingWebEvent[]) => storeWebEventBatch(sql, items),
}));

export function captureWebEvent(
  deps: Pick<Deps, 'sql' | 'now'>,
  project: Project,
  input: WebEventInput,
  ip: string,
): Promise<WebCaptureOutcome> {
  const now = deps.now();
  const factId = input.eventId ?? `we_${newTimeId(now)}`;
  const row = webEventRow(project, input, ip, factId, now);
  return webEventBatcher(deps.sql)({ projectId: project.id, eventId: input.eventId, factId, row });
}
