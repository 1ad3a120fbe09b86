// integrations: third-party ids (in practice {clevertap_id}) merged into the install's
// integration_info; a key sent again replaces its value. The merged map holds at most
// MAX_INTEGRATION_KEYS keys. An unknown install is a 400 (as attribution-data).
import type { Deps } from '../../deps.ts';
import { ApiError } from '../../http/errors.ts';
import { MSG } from '../../http/messages.ts';
import { findInstall, mergeIntegrationInfo } from '../../store/postgres/installs.ts';
import { retryConflicts } from '../../store/postgres/pool.ts';
import type { Project } from '../../store/postgres/projects.ts';

export const MAX_INTEGRATION_KEYS = 100;

export async function saveIntegrations(
  deps: Pick<Deps, 'sql'>,
  project: Project,
  input: { installInstanceId: string; integrationInfo: Record<string, string> },
): Promise<void> {
  const { installInstanceId, integrationInfo } = input;
  // One statement: a deadlock victim committed nothing and may run again (pool.ts).
  const merged = await retryConflicts(() =>
    mergeIntegrationInfo(deps.sql, project.id, installInstanceId, integrationInfo, MAX_INTEGRATION_KEYS),
  );
  if (merged) {
    return;
  }
  const install = await findInstall(deps.sql, project.id, installInstanceId);
  throw new ApiError(400, install ? MSG.integrationInfoTooManyKeys : MSG.installNotFound);
}
