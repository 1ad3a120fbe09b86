// The delivery log: one ClickHouse row per attempt (clickhouse/migrations/0013). Written directly,
// with the attempt id as the dedup token; a log that cannot be written is reported and never fails
// the delivery itself (its state is in Postgres).
import type { Deps } from '../../deps.ts';
import { newTimeId } from '../../lib/ids.ts';
import { formatChTime } from '../../lib/time.ts';
import { insertFactRows } from '../../store/clickhouse/facts.ts';

export type AttemptLog = {
  projectId: string;
  destination: string;
  startedAtMs: number;
  outcome: 'sent' | 'retry' | 'dead' | 'invalid' | 'stale';
  httpStatus: number;
  deliveryIds: string[];
  latencyMs: number;
  response: string;
};

export async function logAttempt(deps: Pick<Deps, 'ch' | 'log'>, a: AttemptLog): Promise<void> {
  const attemptId = `da_${newTimeId()}`;
  const row = {
    attempt_id: attemptId,
    project_id: a.projectId,
    destination: a.destination,
    ts: formatChTime(a.startedAtMs),
    outcome: a.outcome,
    http_status: a.httpStatus,
    events: a.deliveryIds.length,
    delivery_ids: a.deliveryIds,
    latency_ms: a.latencyMs,
    response: a.response.slice(0, 500),
  };
  try {
    await insertFactRows(deps.ch, 'delivery_attempts', [row], attemptId);
  } catch (err) {
    deps.log.warn({ destination: a.destination, err: String(err) }, 'delivery attempt not logged');
  }
}
