// PUT, GET and DELETE /api/v1/connections/{braze,mixpanel,amplitude,posthog,ga4,clevertap}: a project's analytics
// integrations, with the server key (campaign family: 10/s, `Server key missing!` / `Server key
// invalid!`), as PUT /connections/meta. The key is never answered back: a fingerprint is.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { setAnalyticsConnection } from '../../../domain/analytics/set-analytics-connection.ts';
import { ANALYTICS_VENDORS, FIELDS } from '../../../domain/analytics/vendors.ts';
import {
  type AnalyticsConnection,
  type AnalyticsVendor,
  deleteAnalyticsConnection,
  findAnalyticsConnection,
} from '../../../store/postgres/analytics-connections.ts';
import { CRUD_AUTH, projectOf, serviceKey } from '../../auth/service-key.ts';
import { MSG } from '../../messages.ts';
import { parseAnalyticsConnection } from '../../parse/v1/analytics-connections.ts';
import { ok } from '../../reply.ts';

export const VENDOR_NAMES: Record<AnalyticsVendor, string> = {
  braze: 'Braze',
  mixpanel: 'Mixpanel',
  amplitude: 'Amplitude',
  posthog: 'PostHog',
  ga4: 'GA4',
  clevertap: 'CleverTap',
};

export const presentAnalyticsConnection = (c: AnalyticsConnection) => ({
  connected: true,
  vendor: c.vendor,
  endpoint: c.endpoint,
  ...(FIELDS[c.vendor].account ? { [FIELDS[c.vendor].account as string]: c.accountId } : {}),
  active: c.active,
  activated_at: c.activatedAt?.toISOString() ?? null,
  key_fingerprint: c.keyFingerprint,
  updated_at: c.updatedAt.toISOString(),
});

export function registerAnalyticsConnectionRoutes(app: FastifyInstance, deps: Deps): void {
  const auth = serviceKey(deps, CRUD_AUTH, 'campaign');
  for (const vendor of ANALYTICS_VENDORS) {
    const path = `/connections/${vendor}`;
    const name = VENDOR_NAMES[vendor];
    app.put(path, { preHandler: auth }, async (req, reply) => {
      const input = parseAnalyticsConnection(vendor, req.body);
      const c = await setAnalyticsConnection(deps, projectOf(req).id, input);
      return ok(reply, 200, MSG.analyticsConnectionSaved(name), presentAnalyticsConnection(c));
    });
    app.get(path, { preHandler: auth }, async (req, reply) => {
      const c = await findAnalyticsConnection(deps.sql, projectOf(req).id, vendor);
      return c
        ? ok(reply, 200, MSG.analyticsConnected(name), presentAnalyticsConnection(c))
        : ok(reply, 200, MSG.analyticsNotConnected(name), { connected: false, vendor });
    });
    app.delete(path, { preHandler: auth }, async (req, reply) => {
      const removed = await deleteAnalyticsConnection(deps.sql, projectOf(req).id, vendor);
      return ok(reply, 200, removed ? MSG.analyticsConnectionRemoved(name) : MSG.analyticsNothingRemoved(name), {
        removed,
      });
    });
  }
}
