// One attempt for a batch of a vendor's rows: the project's connection, its key unsealed, the
// vendor's request, 5 s for the exchange (no redirects, the answer capped), classified as every
// delivery is (send-attempt.ts: 2xx sent; 5xx, 429, 408, timeouts and network failures retried;
// any other 4xx dead), plus Mixpanel's and CleverTap's refusals inside a 200, plus the users the
// answer names as refused (read-refusals.ts), which the caller ends alone.
// A self-hosted PostHog host is the tenant's choice: unless the operator set ANALYTICS_BASE_URL
// (then every request goes where the operator said), the socket connects only to public addresses
// (public-address.ts), and a name that resolves to none makes the batch dead. The key is redacted
// from what is kept of the answer, since a vendor may quote it (Amplitude's `Invalid API key: …`).
import type { Deps } from '../../deps.ts';
import { publicOnlyLookup } from '../../lib/public-address.ts';
import { redactSecrets } from '../../lib/redact-secret.ts';
import { decryptSecret, loadSecretsKey } from '../../lib/secrets.ts';
import { type AnalyticsVendor, findAnalyticsConnection } from '../../store/postgres/analytics-connections.ts';
import type { Delivery } from '../../store/postgres/deliveries.ts';
import { type AttemptResult, exchangeAttempt, summarize } from '../deliveries/send-attempt.ts';
import type { AnalyticsPayload } from './queue-analytics-deliveries.ts';
import { type Refusals, readRefusals } from './read-refusals.ts';
import { refusedIn2xx, vendorRequest, vendorUrl } from './vendor-request.ts';

export const ANALYTICS_TIMEOUT_MS = 5000;

export const analyticsKeyContext = (projectId: string, vendor: AnalyticsVendor): string =>
  `analytics_connections.key_enc:${projectId}:${vendor}`;

/** The attempt, and the users its answer names as refused (by index in `rows`). */
export type VendorAttempt = { result: AttemptResult; refusals?: Refusals };

/** 'removed': the connection is gone; undefined: it is switched off (rows wait until it is back). */
export async function sendAnalyticsBatch(
  deps: Pick<Deps, 'sql' | 'config'>,
  projectId: string,
  vendor: AnalyticsVendor,
  rows: Delivery[],
): Promise<VendorAttempt | 'removed' | undefined> {
  const conn = await findAnalyticsConnection(deps.sql, projectId, vendor);
  if (!conn) {
    return 'removed';
  }
  if (!conn.active) {
    return undefined;
  }
  const key = decryptSecret(await loadSecretsKey(deps.config), conn.keyEnc, analyticsKeyContext(projectId, vendor));
  const url = vendorUrl(vendor, conn.endpoint, deps.config.analyticsBaseUrl);
  const sent = rows.map((r) => ({ payload: r.payload as AnalyticsPayload, eventTime: r.eventTime }));
  const req = vendorRequest(vendor, url, key, sent, conn.accountId);
  const { result, answer: body } = await exchangeAttempt(req.url, req.body, {
    timeoutMs: ANALYTICS_TIMEOUT_MS,
    headers: req.headers,
    contentType: req.contentType,
    lookup: deps.config.analyticsBaseUrl ? undefined : publicOnlyLookup(),
    redact: (text) => redactSecrets(text, [key]),
  });
  const ids = sent.map((r) => r.payload.ids);
  const refusals = result.httpStatus > 0 ? readRefusals(vendor, result.httpStatus, body, rows.length, ids) : undefined;
  if (refusals) {
    return { result, refusals };
  }
  const refused = result.outcome === 'sent' ? refusedIn2xx(vendor, body) : undefined;
  return { result: refused ? { ...result, outcome: 'dead', summary: summarize(refused) } : result };
}
