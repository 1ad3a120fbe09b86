// What an operator uploads for uninstall tracking (Settings → Uninstall Tracking): an FCM service
// account JSON (as downloaded from Firebase) or an APNs auth key (.p8) with its key id, team id
// and the app's bundle id (the apns-topic). Validated before it is sealed.
import { z } from 'zod';

export const fcmCredentialsSchema = z.object({
  project_id: z.string().min(1),
  client_email: z.string().min(3),
  private_key: z.string().includes('PRIVATE KEY'),
});
export type FcmCredentials = z.infer<typeof fcmCredentialsSchema>;

export const apnsCredentialsSchema = z.object({
  key_id: z.string().regex(/^[A-Z0-9]{10}$/, 'a 10-character key id'),
  team_id: z.string().regex(/^[A-Z0-9]{10}$/, 'a 10-character team id'),
  bundle_id: z.string().min(1),
  private_key: z.string().includes('PRIVATE KEY'),
});
export type ApnsCredentials = z.infer<typeof apnsCredentialsSchema>;

export const pushCredentialsContext = (projectId: string, provider: string): string =>
  `push_credentials.credentials_enc:${projectId}:${provider}`;
