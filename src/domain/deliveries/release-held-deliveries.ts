// The install's attribution is decided: sign-up webhooks written while it was pending get the
// decided campaign fields and go out right after the install's own webhook (called in the
// decision's transaction, after the install webhook is queued, so their ids come after its; or by
// the delivery job for rows it claimed whose hold ended, see settle-held-deliveries.ts). Held
// analytics rows (a user registered before the decision) get the decided user properties.
import { findInstallAttribution } from '../../store/postgres/analytics-context.ts';
import { findDeliveryContext } from '../../store/postgres/delivery-context.ts';
import { hasHeldRows, releaseHeldRows } from '../../store/postgres/held-deliveries.ts';
import type { Sql } from '../../store/postgres/pool.ts';
import { analyticsProperties } from '../analytics/analytics-properties.ts';
import { webhookAttribution } from './webhook-body.ts';

export async function releaseHeldDeliveries(
  tx: Sql,
  projectId: string,
  installInstanceId: string,
  claimedIds: readonly string[] = [],
): Promise<number> {
  if (!(await hasHeldRows(tx, projectId, installInstanceId))) {
    return 0;
  }
  const ctx = await findDeliveryContext(tx, projectId, installInstanceId, null);
  if (ctx?.attributionStatus !== 'decided') {
    return 0;
  }
  const install = await findInstallAttribution(tx, projectId, installInstanceId);
  const analytics = install ? { properties: analyticsProperties(install) } : {};
  return releaseHeldRows(tx, projectId, installInstanceId, { webhook: webhookAttribution(ctx), analytics }, claimedIds);
}
