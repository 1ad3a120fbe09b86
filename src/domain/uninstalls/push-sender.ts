// The silent-push sender behind uninstall tracking. Real implementations call FCM HTTP v1
// (fcm-sender.ts) and APNs (apns-sender.ts); tests use a local fake. A sender answers one result
// per target, in order:
//  - delivered:    the service accepted the push (the app is still installed);
//  - unregistered: the service says the token is gone (FCM's error UNREGISTERED / NOT_FOUND,
//                  APNs 410): a failed day;
//  - error:        anything else (network, 5xx, throttling, bad credentials, APNs BadDeviceToken, a
//                  404 without FCM's error body). Not a failed day, so an outage of the push
//                  service, or a wrong base URL, never turns installs into uninstalls.
export type PushProvider = 'FCM' | 'APNS';
export type PushTarget = { installInstanceId: string; token: string };
export type PushResult = 'delivered' | 'unregistered' | 'error';

export type PushSender = {
  readonly provider: PushProvider;
  send(batch: readonly PushTarget[]): Promise<PushResult[]>;
};

/** A project's senders by provider; a provider without credentials is absent. */
export type ProjectSenders = Partial<Record<PushProvider, PushSender>>;
export type SenderFactory = (projectId: string) => Promise<ProjectSenders>;

const APNS_TOKEN = /^[0-9a-f]{64}$/i;

/** APNs device tokens are 64 hex characters; FCM registration tokens never are. */
export const providerOfToken = (token: string): PushProvider => (APNS_TOKEN.test(token) ? 'APNS' : 'FCM');
