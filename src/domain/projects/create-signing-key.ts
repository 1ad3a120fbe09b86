// Issues an SDK signing key for one platform of a project (real-clients §2: credentials are per
// platform). The secret is 32 random bytes, base64url; the SDK uses its UTF-8 text as the HMAC key
// as-is. It is returned once; the CLI never lists it again. Key ids start `lrk_`, never `sk_`
// (server keys), so the two are not confused.
import { randomBytes } from 'node:crypto';
import type { PgDeps } from '../../deps.ts';
import { randomCode } from '../../lib/ids.ts';
import { insertSigningKey, type SigningKey, type SigningPlatform } from '../../store/postgres/signing-keys.ts';
import { InputError } from './input-error.ts';
import { requireProject } from './require-project.ts';

export async function createSigningKey(
  deps: Pick<PgDeps, 'sql'>,
  projectId: string,
  input: { platform: string },
): Promise<SigningKey> {
  await requireProject(deps, projectId);
  const platform = input.platform.trim().toUpperCase();
  if (platform !== 'IOS' && platform !== 'ANDROID') {
    throw new InputError(`--platform '${input.platform}' must be IOS or ANDROID`);
  }
  return insertSigningKey(deps.sql, {
    keyId: `lrk_${randomCode(16)}`,
    projectId,
    platform: platform as SigningPlatform,
    secret: randomBytes(32).toString('base64url'),
  });
}
