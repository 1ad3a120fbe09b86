// The real push senders against local fakes of the protocols: FCM HTTP v1 (service-account JWT
// exchanged for an OAuth2 token, one messages:send per token) and APNs (HTTP/2, ES256 provider
// token, /3/device/<token>). Checks the basics each service relies on and how answers map to
// delivered / unregistered / error.
import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createApnsSender } from '../../src/domain/uninstalls/apns-sender.ts';
import { createFcmSender } from '../../src/domain/uninstalls/fcm-sender.ts';

const closers: (() => void)[] = [];
afterAll(() => {
  for (const c of closers) {
    c();
  }
});

function verifyJwt(jwt: string, pem: string, alg: 'RS256' | 'ES256') {
  const [h, c, s] = jwt.split('.');
  const key = createPublicKey(pem);
  const data = Buffer.from(`${h}.${c}`);
  const sig = Buffer.from(s ?? '', 'base64url');
  const ok =
    alg === 'RS256'
      ? verify('sha256', data, key, sig)
      : verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, sig);
  return {
    ok,
    header: JSON.parse(Buffer.from(h ?? '', 'base64url').toString()),
    claims: JSON.parse(Buffer.from(c ?? '', 'base64url').toString()),
  };
}

const readBody = (req: http.IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    let b = '';
    req.on('data', (d) => {
      b += d;
    });
    req.on('end', () => resolve(b));
  });

describe('FCM HTTP v1', () => {
  it('when tokens are ok, gone and failing, then delivered, unregistered and error, with one OAuth exchange', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pub = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const seen = {
      tokenCalls: 0,
      assertions: [] as ReturnType<typeof verifyJwt>[],
      messages: [] as unknown[],
      auth: new Set<string>(),
    };
    const server = http.createServer(async (req, res) => {
      const body = await readBody(req);
      if (req.url === '/token') {
        seen.tokenCalls += 1;
        const form = new URLSearchParams(body);
        expect(form.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
        seen.assertions.push(verifyJwt(form.get('assertion') ?? '', pub, 'RS256'));
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ access_token: 'at-1', expires_in: 3600 }));
        return;
      }
      seen.auth.add(String(req.headers.authorization));
      const msg = JSON.parse(body).message;
      seen.messages.push({ url: req.url, msg });
      if (msg.token === 'ok') {
        res.writeHead(200).end('{"name":"projects/p/messages/1"}');
      } else if (msg.token === 'gone') {
        res.writeHead(404).end('{"error":{"status":"NOT_FOUND","details":[{"errorCode":"UNREGISTERED"}]}}');
      } else {
        res.writeHead(500).end('{}');
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => server.close());
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const sender = createFcmSender(
      {
        project_id: 'proj-1',
        client_email: 'svc@proj-1.iam.gserviceaccount.com',
        private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      },
      { fcmBaseUrl: base, fcmTokenUrl: `${base}/token` },
    );
    const t = (token: string) => ({ installInstanceId: token, token });

    const first = await sender.send([t('ok'), t('gone'), t('boom')]);
    const second = await sender.send([t('ok')]);

    expect(first).toEqual(['delivered', 'unregistered', 'error']);
    expect(second).toEqual(['delivered']);
    expect(seen.tokenCalls).toBe(1);
    expect(seen.assertions[0]).toMatchObject({
      ok: true,
      header: { alg: 'RS256', typ: 'JWT' },
      claims: {
        iss: 'svc@proj-1.iam.gserviceaccount.com',
        scope: 'https://www.googleapis.com/auth/firebase.messaging',
        aud: `${base}/token`,
      },
    });
    expect([...seen.auth]).toEqual(['Bearer at-1']);
    expect(seen.messages[0]).toEqual({
      url: '/v1/projects/proj-1/messages:send',
      msg: {
        token: 'ok',
        data: { lr_uninstall_check: '1' },
        android: { priority: 'normal' },
        apns: {
          headers: { 'apns-push-type': 'background', 'apns-priority': '5' },
          payload: { aps: { 'content-available': 1 } },
        },
      },
    });
  });
});

describe('APNs', () => {
  it('when tokens answer 200, 410 and 400 BadDeviceToken, then delivered, unregistered and error over HTTP/2', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const pub = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const requests: {
      path: string;
      topic: unknown;
      type: unknown;
      priority: unknown;
      jwt: ReturnType<typeof verifyJwt>;
      body: string;
    }[] = [];
    const server = http2.createServer();
    server.on('stream', (stream, headers) => {
      let body = '';
      stream.on('data', (d) => {
        body += d;
      });
      stream.on('end', () => {
        const path = String(headers[':path']);
        requests.push({
          path,
          topic: headers['apns-topic'],
          type: headers['apns-push-type'],
          priority: headers['apns-priority'],
          jwt: verifyJwt(String(headers.authorization).replace(/^bearer /, ''), pub, 'ES256'),
          body,
        });
        const token = path.split('/').at(-1) ?? '';
        const status = token.startsWith('a') ? 200 : token.startsWith('b') ? 410 : 400;
        stream.respond({ ':status': status });
        stream.end(
          status === 200 ? '' : JSON.stringify({ reason: status === 410 ? 'Unregistered' : 'BadDeviceToken' }),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => server.close());
    const sender = createApnsSender(
      {
        key_id: 'ABC123DEFG',
        team_id: 'TEAM123456',
        bundle_id: 'com.example.app',
        private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      },
      `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    );
    const t = (c: string) => ({ installInstanceId: c, token: c.repeat(64) });

    const results = await sender.send([t('a'), t('b'), t('c')]);

    expect(results).toEqual(['delivered', 'unregistered', 'error']);
    expect(requests).toHaveLength(3);
    expect(requests.find((r) => r.path === `/3/device/${'a'.repeat(64)}`)).toMatchObject({
      topic: 'com.example.app',
      type: 'background',
      priority: '5',
      jwt: { ok: true, header: { alg: 'ES256', kid: 'ABC123DEFG' }, claims: { iss: 'TEAM123456' } },
      body: '{"aps":{"content-available":1}}',
    });
  });
});
