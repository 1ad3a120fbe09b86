// Queues a user's install attribution for each active analytics vendor, inside the transaction of
// the trigger (or set-user-data) that registered or updated the user, so the user and the rows
// commit together. One row per (user, vendor ids) and vendor: a repeat queues nothing, a new id
// (say a later mixpanel_distinct_id) queues one more. The attribution is the registering install's;
// while that install is still being attributed the row is held (as sign-up webhooks are) and the
// decision fills its properties (release-held-deliveries.ts). A project without an active vendor
// costs one cached lookup.

import { findActiveAnalyticsVendors } from '../../store/postgres/analytics-connections.ts';
import { findAnalyticsUser, findInstallAttribution } from '../../store/postgres/analytics-context.ts';
import { insertDeliveries, type NewDelivery } from '../../store/postgres/deliveries.ts';
import type { Sql } from '../../store/postgres/pool.ts';
import { HOLD_FOR_ATTRIBUTION_MS } from '../deliveries/queue-deliveries.ts';
import { analyticsProperties } from './analytics-properties.ts';
import { vendorIdentity } from './vendor-identity.ts';
import { analyticsDestination } from './vendors.ts';

/** The stored payload: the vendor's ids, and the properties (null while held). */
export type AnalyticsPayload = { ids: Record<string, string>; properties: Record<string, string | boolean> | null };

/** Returns how many deliveries were queued. */
export async function queueAnalyticsDeliveries(
  tx: Sql,
  q: { projectId: string; userId: string; nowMs: number },
): Promise<number> {
  const vendors = await findActiveAnalyticsVendors(tx, q.projectId);
  if (vendors.length === 0) {
    return 0;
  }
  const user = await findAnalyticsUser(tx, q.projectId, q.userId);
  const install = user && (await findInstallAttribution(tx, q.projectId, user.installInstanceId));
  if (!user || !install) {
    return 0;
  }
  const held = install.status !== 'decided';
  const properties = held ? null : analyticsProperties(install);
  const rows: NewDelivery[] = [];
  for (const vendor of vendors) {
    const identity = vendorIdentity(vendor, user.userId, user.userData, user.integrationInfo);
    if (!identity) {
      continue;
    }
    const payload: AnalyticsPayload = { ids: identity.ids, properties };
    rows.push({
      projectId: q.projectId,
      destination: analyticsDestination(vendor),
      eventKey: identity.key,
      userId: user.userId,
      installInstanceId: install.installInstanceId,
      eventTime: new Date(q.nowMs),
      payload,
      heldUntil: held ? new Date(q.nowMs + HOLD_FOR_ATTRIBUTION_MS) : undefined,
    });
  }
  return insertDeliveries(tx, rows);
}
