// `uninstalls run` (README CLI: "runs today's uninstall-tracking pass now ... (the worker runs it
// daily at 03:00 UTC)", "Beside a server: yes") while the worker's job runs the same day's pass,
// with the real FCM sender against a local fake FCM. README "Uninstall tracking": "sends one silent
// push each ... A rerun on the same day skips installs already pushed." The CLI says when it waits
// for installs another pass holds.
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { uninstallPassJob } from '../../jobs/uninstall-pass.job.ts';
import { COMMANDS } from '../../src/cli/commands.ts';
import { setPushCredentials } from '../../src/domain/uninstalls/set-push-credentials.ts';
import { attributedInstall, useClientHarness } from '../support/client.ts';
import { newProject, type TestProject } from '../support/harness.ts';
import { savePushToken, uninstallState } from '../support/uninstalls.ts';

// A slow fake FCM (300 ms a message) that answers UNREGISTERED and counts messages per token.
const pushes = new Map<string, number>();
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (d) => {
    body += d;
  });
  req.on('end', () => {
    if (req.url === '/token') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"access_token":"at","expires_in":3600}');
      return;
    }
    const token = JSON.parse(body).message.token as string;
    pushes.set(token, (pushes.get(token) ?? 0) + 1);
    setTimeout(() => {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end('{"error":{"code":404,"status":"NOT_FOUND","details":[{"errorCode":"UNREGISTERED"}]}}');
    }, 300);
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
afterAll(() => {
  server.close();
});

const h = useClientHarness({
  SECRETS_KEY: randomBytes(32).toString('hex'),
  FCM_BASE_URL: base,
  FCM_OAUTH_TOKEN_URL: `${base}/token`,
});

const RSA_PEM = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();

const uninstallsRun = (progress: (line: string) => void = () => {}) => {
  const c = COMMANDS.find((x) => x.path.join(' ') === 'uninstalls run');
  if (!c) {
    throw new Error('no command uninstalls run');
  }
  return c.run(h().deps, {}, progress);
};

async function installWithCredentials(): Promise<{ p: TestProject; iid: string; token: string }> {
  const p = await newProject(h().deps);
  const { iid } = await attributedInstall(h(), p);
  const token = `fcm:${randomUUID()}`;
  expect((await savePushToken(h(), p, iid, token)).statusCode).toBe(200);
  await setPushCredentials(h().deps, p.project.id, 'FCM', {
    project_id: 'proj-1',
    client_email: 'svc@proj-1.iam.gserviceaccount.com',
    private_key: RSA_PEM,
  });
  return { p, iid, token };
}

describe('uninstalls run beside the worker', () => {
  it('when the CLI pass and the worker job run at the same time, then each token gets one push and one failed day', async () => {
    const { p, iid, token } = await installWithCredentials();

    const [cli] = await Promise.all([uninstallsRun(), uninstallPassJob(h().deps)({ day: '' })]);

    expect(cli.json).toMatchObject({ targets: expect.any(Number) });
    expect(await uninstallState(h().deps, p, iid)).toEqual({ push_failures: 1, uninstalled: false });
    expect(pushes.get(token)).toBe(1);
  });

  it('when another pass holds an install, then the CLI says it waits, and pushes it once that claim lapses', async () => {
    const { p, iid, token } = await installWithCredentials();
    // A pass that stopped: its claim lapses in a second.
    await h().deps.sql`UPDATE installs SET push_claimed_until = now() + interval '1 second'
      WHERE project_id = ${p.project.id} AND install_instance_id = ${iid}`;
    const lines: string[] = [];

    const cli = await uninstallsRun((line) => lines.push(line));

    expect(lines).toEqual([
      "another uninstall pass is running and holds 1 of today's installs: waiting until it has recorded them (a pass that stopped gives them up within 10 minutes)",
    ]);
    expect(cli.text).toMatch(/; 1 held by another pass \(waited \d+ s\)$/);
    expect(pushes.get(token)).toBe(1);
    expect(await uninstallState(h().deps, p, iid)).toEqual({ push_failures: 1, uninstalled: false });
  });
});
