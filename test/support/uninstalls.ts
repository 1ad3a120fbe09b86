// Readers shared by the uninstall tests (test/uninstalls): an install's uninstall state in Postgres.
import type { Deps } from '../../src/deps.ts';
import type { TestProject } from './harness.ts';

/** push_failures and whether uninstalled_at is set, for one install. */
export async function uninstallState(deps: Pick<Deps, 'sql'>, p: TestProject, iid: string) {
  const [r] = await deps.sql`SELECT push_failures, uninstalled_at IS NOT NULL AS uninstalled FROM installs
    WHERE project_id = ${p.project.id} AND install_instance_id = ${iid}`;
  return r;
}
