// One attempt for a batch of a vendor's rows: the project's connection, its key unsealed, the
// vendor's request, 5 s for the exchange (no redirects, the answer capped), classified as every
// delivery is (send-attempt.ts: 2xx sent; 5xx, 429, 408, timeouts and network failures retried;
// any other 4xx dead), plus Mixpanel's refusals inside a 200.
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
import { type AttemptResult, sendAttempt, summarize } from '../deliveries/send-attempt.ts';
import type { AnalyticsPayload } from './queue-analytics-deliveries.ts';
import { refusedIn2xx, vendorRequest, vendorUrl } from './vendor-request.ts';

export const ANALYTICS_TIMEOUT_MS = 5000;

export const analyticsKeyContext = (projectId: string, vendor: AnalyticsVendor): string =>
  `analytics_connections.key_enc:${projectId}:${vendor}`;

/** 'removed': the connection is gone; undefined: it is switched off (rows wait until it is back). */
export async function sendAnalyticsBatch(
  deps: Pick<Deps, 'sql' | 'config'>,
  projectId: string,
  vendor: AnalyticsVendor,
  rows: Delivery[],
): Promise<AttemptResult | 'removed' | undefined> {
  const conn = await findAnalyticsConnection(deps.sql, projectId, vendor);
  if (!conn) {
    return 'removed';
  }
  if (!conn.active) {
    return undefined;
  }
  const key = decryptSecret(await loadSecretsKey(deps.config), conn.keyEnc, analyticsKeyContext(projectId, vendor));
  const url = vendorUrl(vendor, conn.endpoint, deps.config.analyticsBaseUrl);
  const req = vendorRequest(
    vendor,
    url,
    key,
    rows.map((r) => ({ payload: r.payload as AnalyticsPayload, eventTime: r.eventTime })),
  );
  const r = await sendAttempt(req.url, req.body, {
    timeoutMs: ANALYTICS_TIMEOUT_MS,
    headers: req.headers,
    contentType: req.contentType,
    lookup: deps.config.analyticsBaseUrl ? undefined : publicOnlyLookup(),
    redact: (text) => redactSecrets(text, [key]),
  });
  const refused = r.outcome === 'sent' ? refusedIn2xx(vendor, r.summary) : undefined;
  return refused ? { ...r, outcome: 'dead', summary: summarize(refused) } : r;
}
