// Turns SDK signing enforcement on or off for a project. While on, unsigned client requests are
// refused; a request with a bad signature is refused either way. Turning it on with no active key
// would refuse every SDK call, so the caller gets the active key count to warn about.
import type { PgDeps } from '../../deps.ts';
import { countActiveSigningKeys, updateSigningPolicy } from '../../store/postgres/signing-keys.ts';
import { InputError, trueOrFalse } from './input-error.ts';
import { requireProject } from './require-project.ts';

export async function setSigningEnforcement(
  deps: Pick<PgDeps, 'sql'>,
  projectId: string,
  input: { enforce: string },
): Promise<{ enforce: boolean; activeKeys: number }> {
  await requireProject(deps, projectId);
  const enforce = trueOrFalse('enforce', input.enforce);
  const policy = await updateSigningPolicy(deps.sql, projectId, { enforce });
  if (!policy) {
    throw new InputError(`project '${projectId}' not found (see: projects list)`);
  }
  return { enforce: policy.enforce, activeKeys: await countActiveSigningKeys(deps.sql, projectId) };
}
