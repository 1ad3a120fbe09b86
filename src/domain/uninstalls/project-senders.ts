// The real SenderFactory: a project's stored credentials, unsealed, as FCM / APNs senders. A
// credential that no longer decrypts or validates is logged (without its content) and skipped.
import type { Deps } from '../../deps.ts';
import { decryptSecret, loadSecretsKey } from '../../lib/secrets.ts';
import { findPushCredentials } from '../../store/postgres/push-credentials.ts';
import { createApnsSender } from './apns-sender.ts';
import { createFcmSender } from './fcm-sender.ts';
import { apnsCredentialsSchema, fcmCredentialsSchema, pushCredentialsContext } from './push-credentials.ts';
import type { ProjectSenders, SenderFactory } from './push-sender.ts';

export function projectSenders(deps: Pick<Deps, 'sql' | 'config' | 'log'>): SenderFactory {
  return async (projectId) => {
    const out: ProjectSenders = {};
    const rows = await findPushCredentials(deps.sql, projectId);
    if (rows.length === 0) {
      return out;
    }
    const key = await loadSecretsKey(deps.config);
    for (const r of rows) {
      try {
        const plain = JSON.parse(decryptSecret(key, r.sealed, pushCredentialsContext(projectId, r.provider)));
        if (r.provider === 'FCM') {
          out.FCM = createFcmSender(fcmCredentialsSchema.parse(plain), deps.config.push);
        } else if (r.provider === 'APNS') {
          out.APNS = createApnsSender(apnsCredentialsSchema.parse(plain), deps.config.push.apnsBaseUrl);
        }
      } catch {
        deps.log.warn({ projectId, provider: r.provider }, 'push credentials unusable; provider skipped');
      }
    }
    return out;
  };
}
