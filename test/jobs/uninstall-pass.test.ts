// uninstall-pass job wiring: the handler runs the pass with the project's stored FCM credentials
// against a local fake of FCM HTTP v1 (OAuth2 token + messages:send), reached only through the
// FCM_BASE_URL / FCM_OAUTH_TOKEN_URL settings, and records the answer on the install.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uninstallPassJob } from '../../jobs/uninstall-pass.job.ts';
import { setPushCredentials } from '../../src/domain/uninstalls/set-push-credentials.ts';
import { init, post } from '../support/client.ts';
import { closeHarness, type Harness, makeHarness, newProject } from '../support/harness.ts';

const sent: { token: string; auth: string }[] = [];
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (d) => {
    body += d;
  });
  req.on('end', () => {
    if (req.url === '/oauth/token') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"access_token":"at-job","expires_in":3600}');
      return;
    }
    const token = JSON.parse(body).message.token as string;
    sent.push({ token, auth: String(req.headers.authorization) });
    res.writeHead(404).end('{"error":{"status":"NOT_FOUND","details":[{"errorCode":"UNREGISTERED"}]}}');
  });
});
let h: Harness;

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  h = await makeHarness({
    env: {
      RATE_LIMITS_ENABLED: 'false',
      SECRETS_KEY: randomBytes(32).toString('hex'),
      FCM_BASE_URL: `${base}/fcm`,
      FCM_OAUTH_TOKEN_URL: `${base}/oauth/token`,
    },
  });
});

afterAll(async () => {
  await closeHarness(h);
  server.close();
});

describe('uninstall-pass job', () => {
  it('when the job runs, then the install token is pushed through FCM and its failed day is recorded', async () => {
    const p = await newProject(h.deps);
    const iid = `job-${randomBytes(6).toString('hex')}`;
    const token = `fcm-job-${randomBytes(8).toString('hex')}`;
    await init(h, p.token, { install_instance_id: iid });
    await post(h, 'update-push-token', {
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: iid,
      push_token: token,
    });
    const privateKey = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    await setPushCredentials(h.deps, p.project.id, 'FCM', {
      project_id: 'fb-job',
      client_email: 'svc@fb-job.iam.gserviceaccount.com',
      private_key: privateKey,
    });

    await uninstallPassJob(h.deps)({ day: new Date().toISOString().slice(0, 10) });

    expect(sent).toContainEqual({ token, auth: 'Bearer at-job' });
    const [row] = await h.deps.sql`SELECT push_failures, last_push_day IS NOT NULL AS pushed FROM installs
      WHERE project_id = ${p.project.id} AND install_instance_id = ${iid}`;
    expect(row).toEqual({ push_failures: 1, pushed: true });
  });
});
