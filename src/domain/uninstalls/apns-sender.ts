// APNs sender over HTTP/2 (node:http2): one connection per batch, the batch's requests multiplexed
// on it `parallel` at a time, authenticated with an ES256 provider token (cached 50 min; Apple
// wants it renewed within an hour). Each token gets a background push (content-available, priority
// 5). Answers: 200 delivered; 410 Unregistered unregistered; anything else error (BadDeviceToken is
// error too: it also means a sandbox token sent to production, which must not uninstall anyone).
import http2 from 'node:http2';
import { signJwt } from './jwt.ts';
import type { ApnsCredentials } from './push-credentials.ts';
import type { PushResult, PushSender, PushTarget } from './push-sender.ts';

const TOKEN_TTL_MS = 50 * 60_000;
const TIMEOUT_MS = 10_000;
const BODY = JSON.stringify({ aps: { 'content-available': 1 } });

function request(session: http2.ClientHttp2Session, jwt: string, topic: string, t: PushTarget): Promise<PushResult> {
  return new Promise((resolve) => {
    const req = session.request({
      ':method': 'POST',
      ':path': `/3/device/${encodeURIComponent(t.token)}`,
      authorization: `bearer ${jwt}`,
      'apns-topic': topic,
      'apns-push-type': 'background',
      'apns-priority': '5',
      'content-type': 'application/json',
    });
    req.setTimeout(TIMEOUT_MS, () => req.close(http2.constants.NGHTTP2_CANCEL));
    let status = 0;
    req.on('response', (h) => {
      status = Number(h[':status']);
    });
    req.on('data', () => {});
    req.on('end', () => resolve(status === 200 ? 'delivered' : status === 410 ? 'unregistered' : 'error'));
    req.on('error', () => resolve('error'));
    req.on('close', () => resolve(status === 200 ? 'delivered' : status === 410 ? 'unregistered' : 'error'));
    req.end(BODY);
  });
}

export function createApnsSender(creds: ApnsCredentials, baseUrl: string, parallel = 100): PushSender {
  let cached: { jwt: string; until: number } | undefined;
  const providerToken = (): string => {
    if (!cached || cached.until <= Date.now()) {
      const jwt = signJwt(
        'ES256',
        { kid: creds.key_id },
        { iss: creds.team_id, iat: Math.floor(Date.now() / 1000) },
        creds.private_key,
      );
      cached = { jwt, until: Date.now() + TOKEN_TTL_MS };
    }
    return cached.jwt;
  };
  return {
    provider: 'APNS',
    async send(batch) {
      const jwt = providerToken();
      const session = http2.connect(baseUrl);
      session.on('error', () => {});
      try {
        const out: PushResult[] = new Array(batch.length);
        let next = 0;
        const worker = async () => {
          while (next < batch.length) {
            const i = next++;
            out[i] = await request(session, jwt, creds.bundle_id, batch[i] as PushTarget);
          }
        };
        await Promise.all(Array.from({ length: Math.min(parallel, batch.length) }, worker));
        return out;
      } finally {
        session.close();
      }
    },
  };
}
