// How the real FCM and APNs senders map each answer of the push services (README "Uninstall
// tracking": FCM's error UNREGISTERED / NOT_FOUND and APNs 410 are a failed day; anything else,
// timeouts, 5xx, bad credentials, APNs BadDeviceToken, a 404 without FCM's error body, counts as
// neither), against local fakes of the protocols, never the real services; and what the pass logs
// (no tokens, no credentials).
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createApnsSender } from '../../src/domain/uninstalls/apns-sender.ts';
import { createFcmSender } from '../../src/domain/uninstalls/fcm-sender.ts';
import { projectSenders } from '../../src/domain/uninstalls/project-senders.ts';
import { runUninstallPass } from '../../src/domain/uninstalls/run-uninstall-pass.ts';
import { setPushCredentials } from '../../src/domain/uninstalls/set-push-credentials.ts';
import { attributedInstall, useClientHarness } from '../support/client.ts';
import { newProject } from '../support/harness.ts';
import { savePushToken, uninstallState } from '../support/uninstalls.ts';

const h = useClientHarness({ SECRETS_KEY: randomBytes(32).toString('hex') });
const closers: (() => void)[] = [];
afterAll(() => {
  for (const c of closers) {
    c();
  }
});

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const RSA_PEM = rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const EC_PEM = ec.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

type Answer = { status: number; body: string };

/** Fake FCM: /token gives an access token; messages:send answers by the token's script. */
async function fakeFcmBase(answers: Record<string, Answer>, tokenStatus = 200): Promise<string> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      if (req.url === '/token') {
        res
          .writeHead(tokenStatus, { 'content-type': 'application/json' })
          .end(tokenStatus === 200 ? '{"access_token":"at","expires_in":3600}' : '{"error":"invalid_grant"}');
        return;
      }
      const token = JSON.parse(body).message.token as string;
      const a = answers[token] ?? { status: 200, body: '{}' };
      res.writeHead(a.status, { 'content-type': 'application/json' }).end(a.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => server.close());
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function fakeFcm(answers: Record<string, Answer>, tokenStatus = 200) {
  const base = await fakeFcmBase(answers, tokenStatus);
  return createFcmSender(
    { project_id: 'proj-1', client_email: 'svc@proj-1.iam.gserviceaccount.com', private_key: RSA_PEM },
    { fcmBaseUrl: base, fcmTokenUrl: `${base}/token` },
  );
}

const fcmError = (code: number, status: string, errorCode: string) =>
  JSON.stringify({
    error: {
      code,
      message: status,
      status,
      details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode }],
    },
  });

describe('FCM answers', () => {
  it.each<[string, string, Answer]>([
    ['200', 'delivered', { status: 200, body: '{"name":"projects/proj-1/messages/1"}' }],
    ['404 UNREGISTERED', 'unregistered', { status: 404, body: fcmError(404, 'NOT_FOUND', 'UNREGISTERED') }],
    ['400 INVALID_ARGUMENT', 'error', { status: 400, body: fcmError(400, 'INVALID_ARGUMENT', 'INVALID_ARGUMENT') }],
    ['401 UNAUTHENTICATED', 'error', { status: 401, body: fcmError(401, 'UNAUTHENTICATED', 'THIRD_PARTY_AUTH_ERROR') }],
    [
      '403 SENDER_ID_MISMATCH',
      'error',
      { status: 403, body: fcmError(403, 'PERMISSION_DENIED', 'SENDER_ID_MISMATCH') },
    ],
    ['429 QUOTA_EXCEEDED', 'error', { status: 429, body: fcmError(429, 'RESOURCE_EXHAUSTED', 'QUOTA_EXCEEDED') }],
    ['500 INTERNAL', 'error', { status: 500, body: fcmError(500, 'INTERNAL', 'INTERNAL') }],
    ['503 UNAVAILABLE', 'error', { status: 503, body: fcmError(503, 'UNAVAILABLE', 'UNAVAILABLE') }],
  ])('when FCM answers %s, then the result is %s', async (_n, expected, answer) => {
    const sender = await fakeFcm({ tok: answer });

    const [r] = await sender.send([{ installInstanceId: 'i', token: 'tok' }]);

    expect(r).toBe(expected);
  });

  it('when the OAuth exchange is refused (bad credentials), then every token is an error, none unregistered', async () => {
    const sender = await fakeFcm({}, 400);

    const out = await sender
      .send([
        { installInstanceId: 'a', token: 'a' },
        { installInstanceId: 'b', token: 'b' },
      ])
      .catch(() => 'threw');

    // The pass wraps a throwing sender (sendSafely) into errors; either way nothing is unregistered.
    expect(out === 'threw' || (out as string[]).every((x) => x === 'error')).toBe(true);
  });

  it.each<[string, Answer]>([
    ['an HTML page', { status: 404, body: '<html><body>Not Found</body></html>' }],
    ['an empty body', { status: 404, body: '' }],
    ['JSON that is not an FCM error', { status: 404, body: '{"error":"not found"}' }],
    ['a page that names UNREGISTERED in its text', { status: 404, body: '<p>UNREGISTERED route</p>' }],
  ])('when the FCM URL answers 404 with %s (no FCM error), then it is an error, not unregistered', async (_n, a) => {
    // A misrouted FCM_BASE_URL or a proxy answering 404 for the path says nothing about the token.
    const sender = await fakeFcm({ tok: a });

    const [r] = await sender.send([{ installInstanceId: 'i', token: 'tok' }]);

    expect(r).toBe('error');
  });

  it.each<[string, Answer]>([
    ['404 NOT_FOUND without details', { status: 404, body: '{"error":{"code":404,"status":"NOT_FOUND"}}' }],
    ['400 with errorCode UNREGISTERED', { status: 400, body: fcmError(400, 'INVALID_ARGUMENT', 'UNREGISTERED') }],
  ])("when FCM's own error says %s, then the result is unregistered", async (_n, a) => {
    const sender = await fakeFcm({ tok: a });

    const [r] = await sender.send([{ installInstanceId: 'i', token: 'tok' }]);

    expect(r).toBe('unregistered');
  });
});

/** Fake APNs over HTTP/2 cleartext: each 64-hex token's first character picks the answer. */
async function fakeApns(answers: Record<string, Answer>) {
  const server = http2.createServer();
  server.on('stream', (stream, headers) => {
    stream.on('data', () => {});
    stream.on('end', () => {
      const token = String(headers[':path']).split('/').at(-1) ?? '';
      const a = answers[token[0] ?? ''] ?? { status: 200, body: '' };
      stream.respond({ ':status': a.status, 'apns-id': randomUUID() });
      stream.end(a.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => server.close());
  return createApnsSender(
    { key_id: 'ABC123DEFG', team_id: 'TEAM123456', bundle_id: 'com.example.app', private_key: EC_PEM },
    `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  );
}

const reason = (r: string) => JSON.stringify({ reason: r });

describe('APNs answers', () => {
  it.each<[string, string, Answer]>([
    ['200', 'delivered', { status: 200, body: '' }],
    [
      '410 Unregistered',
      'unregistered',
      { status: 410, body: JSON.stringify({ reason: 'Unregistered', timestamp: 1 }) },
    ],
    ['400 BadDeviceToken', 'error', { status: 400, body: reason('BadDeviceToken') }],
    ['400 DeviceTokenNotForTopic', 'error', { status: 400, body: reason('DeviceTokenNotForTopic') }],
    ['403 InvalidProviderToken', 'error', { status: 403, body: reason('InvalidProviderToken') }],
    ['403 ExpiredProviderToken', 'error', { status: 403, body: reason('ExpiredProviderToken') }],
    ['429 TooManyRequests', 'error', { status: 429, body: reason('TooManyRequests') }],
    ['500 InternalServerError', 'error', { status: 500, body: reason('InternalServerError') }],
    ['503 ServiceUnavailable', 'error', { status: 503, body: reason('ServiceUnavailable') }],
  ])('when APNs answers %s, then the result is %s', async (_n, expected, answer) => {
    const sender = await fakeApns({ a: answer });

    const [r] = await sender.send([{ installInstanceId: 'i', token: 'a'.repeat(64) }]);

    expect(r).toBe(expected);
  });

  it('when APNs cannot be reached, then every token is an error', async () => {
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const sender = createApnsSender(
      { key_id: 'ABC123DEFG', team_id: 'TEAM123456', bundle_id: 'com.example.app', private_key: EC_PEM },
      `http://127.0.0.1:${port}`,
    );

    const out = await sender.send([
      { installInstanceId: 'a', token: 'a'.repeat(64) },
      { installInstanceId: 'b', token: 'b'.repeat(64) },
    ]);

    expect(out).toEqual(['error', 'error']);
  });
});

describe('the pass with stored credentials', () => {
  it('when a pass runs with sealed credentials and a failing service, then its logs hold no token or key and nothing is counted', async () => {
    const p = await newProject(h().deps);
    const { iid } = await attributedInstall(h(), p);
    const token = `fcm-secret-token-${randomUUID()}`;
    expect((await savePushToken(h(), p, iid, token)).statusCode).toBe(200);
    await setPushCredentials(h().deps, p.project.id, 'FCM', {
      project_id: 'proj-1',
      client_email: 'svc@proj-1.iam.gserviceaccount.com',
      private_key: RSA_PEM,
    });
    const lines: string[] = [];
    const capture =
      (level: string) =>
      (...args: unknown[]) => {
        lines.push(`${level} ${JSON.stringify(args)}`);
      };
    const log = {
      info: capture('info'),
      warn: capture('warn'),
      error: capture('error'),
      debug: capture('debug'),
      trace: capture('trace'),
      fatal: capture('fatal'),
      child: () => log,
    };
    const base = await fakeFcmBase({
      [token]: { status: 401, body: fcmError(401, 'UNAUTHENTICATED', 'THIRD_PARTY_AUTH_ERROR') },
    });
    const deps = {
      ...h().deps,
      log: log as never,
      config: { ...h().deps.config, push: { fcmBaseUrl: base, fcmTokenUrl: `${base}/token`, apnsBaseUrl: base } },
    };
    const real = projectSenders(deps);

    const tally = await runUninstallPass(deps, (id) => (id === p.project.id ? real(id) : Promise.resolve({})));

    expect(tally.errors).toBeGreaterThanOrEqual(1);
    expect(tally.unregistered).toBe(0);
    expect(await uninstallState(h().deps, p, iid)).toEqual({ push_failures: 0, uninstalled: false });
    const text = lines.join('\n');
    expect(text).not.toContain(token);
    expect(text).not.toContain('PRIVATE KEY');
  });
});
