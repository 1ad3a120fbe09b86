// One Conversions API request: POST {base}/{version}/{dataset_id}/events with the events and the
// access token in the JSON body (Meta accepts access_token as a body parameter), 1.5 s for the
// whole exchange, no redirects, the answer capped. A 200 must say events_received = events sent.
import type { Deps } from '../../deps.ts';
import { decryptSecret, loadSecretsKey } from '../../lib/secrets.ts';
import { findMetaConnection } from '../../store/postgres/connections.ts';
import type { Delivery } from '../../store/postgres/deliveries.ts';
import { type AttemptResult, sendAttempt } from './send-attempt.ts';

export const META_TIMEOUT_MS = 1500;

export const metaTokenContext = (projectId: string): string => `network_connections.access_token_enc:${projectId}:META`;

function checkReceived(expected: number) {
  return (body: string): string | undefined => {
    try {
      const received = (JSON.parse(body) as { events_received?: unknown }).events_received;
      return received === expected ? undefined : `events_received ${String(received)}, expected ${expected}`;
    } catch {
      return 'answer is not JSON';
    }
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
  return sendAttempt(url, body, { timeoutMs: META_TIMEOUT_MS, accept: checkReceived(rows.length) });
}
