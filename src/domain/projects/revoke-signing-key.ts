// Deactivates one SDK signing key of a project: requests signed with it are refused from now on
// (the row is kept so a stale key id is answered as invalid, not as unknown-and-maybe-unsigned).
import type { PgDeps } from '../../deps.ts';
import { deactivateSigningKey, type SigningKeySummary } from '../../store/postgres/signing-keys.ts';
import { InputError } from './input-error.ts';
import { requireProject } from './require-project.ts';

export async function revokeSigningKey(
  deps: Pick<PgDeps, 'sql'>,
  projectId: string,
  keyId: string,
): Promise<SigningKeySummary> {
  await requireProject(deps, projectId);
  const key = await deactivateSigningKey(deps.sql, projectId, keyId.trim());
  if (!key) {
    throw new InputError(`signing key '${keyId}' not found in project '${projectId}' (see: signing-keys list)`);
  }
  return key;
}
