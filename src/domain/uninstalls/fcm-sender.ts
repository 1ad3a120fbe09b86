// FCM HTTP v1 sender: a service-account JWT is exchanged for an OAuth2 access token (cached until
// a minute before it expires), then each token gets one data-only message (FCM v1 has no batch
// endpoint; the batch's sends run `parallel` at a time over a keep-alive agent, keepalive-post.ts). The
// agent is the sender's, shared by the batches the pass has in flight, and holds up to `sockets`
// connections. A pass is bound by round trips, not CPU: at a 100 ms round trip (bench `pushes`,
// BENCH_PUSH_FAKE_MS=100; 60 % FCM tokens) 32 sockets held 519 tokens/s, 128 held 1,428/s. Answers:
// 200 delivered; FCM's own answer that the token is gone (its JSON error with errorCode
// UNREGISTERED, or a 404 whose error status is NOT_FOUND) unregistered; anything else (401, 429,
// 5xx, network, a 404 page without FCM's error: a wrong FCM_BASE_URL or a proxy) error.
// Base URLs come from config only.
import { signJwt } from './jwt.ts';
import { keepAliveAgents, keepAlivePost } from './keepalive-post.ts';
import type { FcmCredentials } from './push-credentials.ts';
import type { PushResult, PushSender, PushTarget } from './push-sender.ts';

const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const TIMEOUT_MS = 10_000;

export type FcmUrls = { fcmBaseUrl: string; fcmTokenUrl: string };

type FcmErrorBody = { error?: { status?: unknown; details?: unknown } };

/** FCM HTTP v1's error body names the token gone; a bare 404 says nothing about the token. */
function saysUnregistered(status: number, text: string): boolean {
  let body: FcmErrorBody;
  try {
    body = JSON.parse(text) as FcmErrorBody;
  } catch {
    return false;
  }
  const error = body?.error;
  if (typeof error !== 'object' || error === null) {
    return false;
  }
  const details = Array.isArray(error.details) ? (error.details as { errorCode?: unknown }[]) : [];
  return details.some((d) => d?.errorCode === 'UNREGISTERED') || (status === 404 && error.status === 'NOT_FOUND');
}

export function createFcmSender(creds: FcmCredentials, urls: FcmUrls, parallel = 32, sockets = 128): PushSender {
  let cached: { token: string; until: number } | undefined;
  const agents = keepAliveAgents(sockets);
  const sendUrl = `${urls.fcmBaseUrl}/v1/projects/${encodeURIComponent(creds.project_id)}/messages:send`;

  async function accessToken(): Promise<string> {
    if (cached && cached.until > Date.now()) {
      return cached.token;
    }
    const iat = Math.floor(Date.now() / 1000);
    const assertion = signJwt(
      'RS256',
      {},
      { iss: creds.client_email, scope: SCOPE, aud: urls.fcmTokenUrl, iat, exp: iat + 3600 },
      creds.private_key,
    );
    const res = await fetch(urls.fcmTokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
      redirect: 'error',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const body = (await res.json().catch(() => ({}))) as { access_token?: string; expires_in?: number };
    if (!res.ok || typeof body.access_token !== 'string') {
      throw new Error(`FCM OAuth token request answered ${res.status}`);
    }
    cached = { token: body.access_token, until: Date.now() + ((body.expires_in ?? 3600) - 60) * 1000 };
    return body.access_token;
  }

  async function sendOne(bearer: string, t: PushTarget): Promise<PushResult> {
    try {
      const res = await keepAlivePost(
        agents,
        sendUrl,
        { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        JSON.stringify({
          message: {
            token: t.token,
            data: { lr_uninstall_check: '1' },
            android: { priority: 'normal' },
            apns: {
              headers: { 'apns-push-type': 'background', 'apns-priority': '5' },
              payload: { aps: { 'content-available': 1 } },
            },
          },
        }),
        TIMEOUT_MS,
      );
      if (res.status >= 200 && res.status < 300) {
        return 'delivered';
      }
      return saysUnregistered(res.status, res.text) ? 'unregistered' : 'error';
    } catch {
      return 'error';
    }
  }

  return {
    provider: 'FCM',
    async send(batch) {
      const bearer = await accessToken();
      const out: PushResult[] = new Array(batch.length);
      let next = 0;
      const worker = async () => {
        while (next < batch.length) {
          const i = next++;
          out[i] = await sendOne(bearer, batch[i] as PushTarget);
        }
      };
      await Promise.all(Array.from({ length: Math.min(parallel, batch.length) }, worker));
      return out;
    },
  };
}
