// Stores a project's Meta "Install Referrer Decryption Key" (from the app's Meta dashboard),
// encrypted under the service's SECRETS_KEY. Only a short fingerprint is ever shown back, so an
// operator can tell which key is set without the key being printed or logged.
import { createHash } from 'node:crypto';
import type { PgDeps } from '../../deps.ts';
import { encryptSecret, loadSecretsKey } from '../../lib/secrets.ts';
import { updateMetaReferrerKeyEnc } from '../../store/postgres/project-secrets.ts';
import { InputError } from './input-error.ts';
import { requireProject } from './require-project.ts';

/** Associated data binding the sealed key to its column and project (see lib/secrets.ts). */
export const metaReferrerKeyContext = (projectId: string): string => `projects.meta_referrer_key_enc:${projectId}`;

export const keyFingerprint = (hexKey: string): string =>
  createHash('sha256').update(hexKey, 'utf8').digest('hex').slice(0, 12);

export async function setMetaReferrerKey(
  deps: Pick<PgDeps, 'sql' | 'config'>,
  projectId: string,
  input: { key: string },
): Promise<{ fingerprint: string }> {
  await requireProject(deps, projectId);
  const key = input.key.trim().toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(key)) {
    // The value is not echoed: it may be a real key with a typo.
    throw new InputError('--key must be the Install Referrer Decryption Key: 64 hex characters');
  }
  const sealed = encryptSecret(await loadSecretsKey(deps.config), key, metaReferrerKeyContext(projectId));
  if (!(await updateMetaReferrerKeyEnc(deps.sql, projectId, sealed))) {
    throw new InputError(`project '${projectId}' not found (see: projects list)`);
  }
  return { fingerprint: keyFingerprint(key) };
}
