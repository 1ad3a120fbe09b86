// One webhook POST, signed: `x-signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`
// (the timestamp lets the receiver refuse replays). `x-delivery-id` is stable across retries so
// the receiver can drop a repeat. 5 s for the exchange (product notes: answer within 5 s).
import { createHmac } from 'node:crypto';
import type { Deps } from '../../deps.ts';
import { decryptSecret, loadSecretsKey } from '../../lib/secrets.ts';
import { findWebhook } from '../../store/postgres/connections.ts';
import { type Delivery, isPending } from '../../store/postgres/deliveries.ts';
import { type AttemptResult, sendAttempt } from './send-attempt.ts';

export const WEBHOOK_TIMEOUT_MS = 5000;

export const webhookSecretContext = (projectId: string, url: string): string =>
  `webhooks.secret_enc:${projectId}:${url}`;

export function signWebhook(secret: string, timestampS: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${timestampS}.${body}`).digest('hex');
  return `t=${timestampS},v1=${mac}`;
}

/**
 * Undefined when the row is gone since the job claimed it: a user deletion removes the user's rows
 * (their bodies hold the user's fields), and a batch POSTs its rows one by one for up to 5 s each,
 * so each row is looked for right before its POST.
 */
export async function sendWebhook(
  deps: Pick<Deps, 'sql' | 'config'>,
  destination: string,
  row: Delivery,
  nowMs: number,
): Promise<AttemptResult | undefined> {
  const hook = await findWebhook(deps.sql, destination.slice('webhook:'.length));
  if (!(await isPending(deps.sql, row.id))) {
    return undefined;
  }
  if (!hook || hook.projectId !== row.projectId) {
    return { outcome: 'dead', httpStatus: 0, latencyMs: 0, summary: 'webhook removed or inactive' };
  }
  const secret = decryptSecret(
    await loadSecretsKey(deps.config),
    hook.secretEnc,
    webhookSecretContext(hook.projectId, hook.url),
  );
  const body = JSON.stringify(row.payload);
  const headers = { 'x-signature': signWebhook(secret, Math.floor(nowMs / 1000), body), 'x-delivery-id': row.id };
  // The status is the receiver's answer: once a 2xx status line and headers are in, the delivery is
  // accepted even if the body never ends (a timeout there would POST it again: a duplicate for a
  // receiver that ignores x-delivery-id).
  return sendAttempt(hook.url, body, { timeoutMs: WEBHOOK_TIMEOUT_MS, headers, cutSlowBody: true });
}
