// Replaces a project's server keys with a new one: every earlier key stops working at once.
import type { PgDeps } from '../../deps.ts';
import { hashKey, newServerKey } from '../../lib/ids.ts';
import { asSql } from '../../store/postgres/pool.ts';
import { insertServerKey, lockProjectRow, revokeServerKeys } from '../../store/postgres/projects.ts';
import { requireProject } from './require-project.ts';

export async function rotateServerKey(
  deps: Pick<PgDeps, 'sql'>,
  projectId: string,
): Promise<{ serverKey: string; revoked: number }> {
  await requireProject(deps, projectId);
  const serverKey = newServerKey();
  const revoked = await deps.sql.begin(async (tx) => {
    await lockProjectRow(asSql(tx), projectId);
    const n = await revokeServerKeys(asSql(tx), projectId);
    await insertServerKey(asSql(tx), projectId, hashKey(serverKey), serverKey.slice(0, 7));
    return n;
  });
  return { serverKey, revoked };
}
