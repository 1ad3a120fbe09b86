// One Conversions API request: POST {base}/{version}/{dataset_id}/events with the events and the
// access token in the JSON body (Meta accepts access_token as a body parameter), 1.5 s for the
// whole exchange, no redirects, the answer capped. A 200 must say events_received = events sent.
import type { Deps } from '../../deps.ts';
import { decryptSecret, loadSecretsKey } from '../../lib/secrets.ts';
import { findMetaConnection } from '../../store/postgres/connections.ts';
import type { Delivery } from '../../store/postgres/deliveries.ts';
import { type AnswerCheck, type AttemptResult, RESPONSE_MAX_BYTES, sendAttempt } from './send-attempt.ts';

export const META_TIMEOUT_MS = 1500;

export const metaTokenContext = (projectId: string): string => `network_connections.access_token_enc:${projectId}:META`;

// Meta answers {"events_received":N,"messages":[…],"fbtrace_id":…}, events_received first. An
// answer cut at the cap (a long messages list) is judged by that leading count.
const LEADING_COUNT = /^\s*\{\s*"events_received"\s*:\s*(\d+)\s*[,}]/;

function receivedCount(body: string, complete: boolean): unknown {
  if (!complete) {
    const m = LEADING_COUNT.exec(body);
    return m ? Number(m[1]) : undefined;
  }
  try {
    return (JSON.parse(body) as { events_received?: unknown }).events_received;
  } catch {
    return undefined;
  }
}

function checkReceived(expected: number): AnswerCheck {
  return (body, complete) => {
    const received = receivedCount(body, complete);
    if (received === expected) {
      return undefined;
    }
    if (received !== undefined) {
      return `events_received ${String(received)}, expected ${expected}`;
    }
    return complete ? 'answer is not JSON' : `answer cut at ${RESPONSE_MAX_BYTES} bytes before events_received`;
  };
}

/** undefined when the project has no active connection (nothing is sent). */
export async function sendMetaBatch(
  deps: Pick<Deps, 'sql' | 'config'>,
  projectId: string,
  rows: Delivery[],
): Promise<AttemptResult | undefined> {
  const conn = await findMetaConnection(deps.sql, projectId);
  if (!conn?.active) {
    return undefined;
  }
  const token = decryptSecret(await loadSecretsKey(deps.config), conn.accessTokenEnc, metaTokenContext(projectId));
  const version = conn.graphVersion ?? deps.config.metaGraphVersion;
  const url = `${deps.config.metaGraphBaseUrl}/${version}/${encodeURIComponent(conn.datasetId)}/events`;
  const body = JSON.stringify({ data: rows.map((r) => r.payload), access_token: token });
  // Unlike a webhook's, a 200 whose body is still open at the time limit is a timeout, retried: the
  // acceptance is the body's events_received, not the status, and Meta drops an event whose
  // event_id (with its event_name) it already has within 48 h, so sending it again counts it once.
  return sendAttempt(url, body, { timeoutMs: META_TIMEOUT_MS, accept: checkReceived(rows.length) });
}
