// Stores a project's FCM or APNs credentials for uninstall tracking, validated and sealed under
// SECRETS_KEY (lib/secrets.ts). Nothing of the credentials is echoed back or logged.
import type { PgDeps } from '../../deps.ts';
import { encryptSecret, loadSecretsKey } from '../../lib/secrets.ts';
import { upsertPushCredentials } from '../../store/postgres/push-credentials.ts';
import { InputError } from '../projects/input-error.ts';
import { requireProject } from '../projects/require-project.ts';
import { apnsCredentialsSchema, fcmCredentialsSchema, pushCredentialsContext } from './push-credentials.ts';
import type { PushProvider } from './push-sender.ts';

export async function setPushCredentials(
  deps: Pick<PgDeps, 'sql' | 'config'>,
  projectId: string,
  provider: PushProvider,
  raw: unknown,
): Promise<void> {
  await requireProject(deps, projectId);
  const schema = provider === 'FCM' ? fcmCredentialsSchema : apnsCredentialsSchema;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    // Names the field only: values may be secrets.
    throw new InputError(
      `--file: invalid ${provider} credentials (${issue?.path.join('.') || 'document'}: ${issue?.message})`,
    );
  }
  const key = await loadSecretsKey(deps.config);
  const sealed = encryptSecret(key, JSON.stringify(parsed.data), pushCredentialsContext(projectId, provider));
  await upsertPushCredentials(deps.sql, projectId, provider, sealed);
}
