// integrations: third-party ids (in practice {clevertap_id}) merged into the install's
// integration_info; a key sent again replaces its value. The merged map holds at most
// MAX_INTEGRATION_KEYS keys. An unknown install is a 400 (as attribution-data).
// A clevertap_id that arrives after the sign-up (the CleverTap SDK often hands it over later)
// queues the users this install registered for the analytics vendors again, in the same
// transaction: CleverTap then gets the profile by that id (objectId); the other vendors' ids are
// unchanged, so nothing more is queued for them (queue-analytics-deliveries.ts keys rows by ids).
import type { Deps } from '../../deps.ts';
import { ApiError } from '../../http/errors.ts';
import { MSG } from '../../http/messages.ts';
import { findInstall, mergeIntegrationInfo } from '../../store/postgres/installs.ts';
import { asSql, retryConflicts } from '../../store/postgres/pool.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { findUsersRegisteredBy } from '../../store/postgres/users.ts';
import { queueAnalyticsDeliveries } from '../analytics/queue-analytics-deliveries.ts';

/** The integration id a vendor reads from the registering install (vendor-identity.ts). */
const VENDOR_INTEGRATION_KEYS = ['clevertap_id'];

export const MAX_INTEGRATION_KEYS = 100;

export async function saveIntegrations(
  deps: Pick<Deps, 'sql' | 'now'>,
  project: Project,
  input: { installInstanceId: string; integrationInfo: Record<string, string> },
): Promise<void> {
  const { installInstanceId, integrationInfo } = input;
  const forVendors = VENDOR_INTEGRATION_KEYS.some((k) => Object.hasOwn(integrationInfo, k));
  // One statement, or one transaction with the vendors' rows: a deadlock victim committed nothing
  // and may run again (pool.ts).
  const merged = await retryConflicts(() =>
    forVendors
      ? deps.sql.begin(async (txh) => {
          const tx = asSql(txh);
          const ok = await mergeIntegrationInfo(
            tx,
            project.id,
            installInstanceId,
            integrationInfo,
            MAX_INTEGRATION_KEYS,
          );
          for (const userId of ok ? await findUsersRegisteredBy(tx, project.id, installInstanceId) : []) {
            await queueAnalyticsDeliveries(tx, { projectId: project.id, userId, nowMs: deps.now() });
          }
          return ok;
        })
      : mergeIntegrationInfo(deps.sql, project.id, installInstanceId, integrationInfo, MAX_INTEGRATION_KEYS),
  );
  if (merged) {
    return;
  }
  const install = await findInstall(deps.sql, project.id, installInstanceId);
  throw new ApiError(400, install ? MSG.integrationInfoTooManyKeys : MSG.installNotFound);
}
