// Webhook URLs with credentials (http://user:pass@host/hook): fetch refuses them, so such a hook
// could never be delivered. `webhooks add` refuses them without echoing the URL; a hook stored
// before that check goes dead at once instead of being retried, and its password reaches no
// error, log row or CLI output.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.ts';
import { addWebhook } from '../../src/domain/deliveries/add-webhook.ts';
import { webhookSecretContext } from '../../src/domain/deliveries/send-webhook.ts';
import { redactUserinfo } from '../../src/lib/http-client.ts';
import { encryptSecret, loadSecretsKey } from '../../src/lib/secrets.ts';
import { insertWebhook } from '../../src/store/postgres/connections.ts';
import { insertDeliveries } from '../../src/store/postgres/deliveries.ts';
import { attemptRows, deliverAt, deliveryEnv, deliveryRows } from '../support/deliveries.ts';
import { FakeWebhook } from '../support/fake-webhook.ts';
import { newProject, testEnv, useHarness } from '../support/harness.ts';

const receiver = new FakeWebhook();
beforeAll(() => receiver.start());
afterAll(() => receiver.stop());
const h = useHarness({ env: deliveryEnv() });

const PASSWORD = 's3cret-pw';
const withCredentials = (user = 'hookuser') => receiver.url.replace('http://', `http://${user}:${PASSWORD}@`);
const REFUSED = '--url must not hold credentials (user:password@): receivers check x-signature';

describe('webhooks add', () => {
  it('when the URL holds user:password@, then the CLI exits 2 with the text, echoes no password and stores nothing', async () => {
    const p = await newProject(h().deps);
    const out: string[] = [];
    const err: string[] = [];
    const env = await testEnv({ SECRETS_KEY: deliveryEnv().SECRETS_KEY ?? '' });

    const code = await runCli(
      ['webhooks', 'add', '--project', p.project.id, '--url', withCredentials(), '--events', 'signup', '--json'],
      env,
      { out: (s) => out.push(s), err: (s) => err.push(s) },
    );

    expect({ code, out, err }).toEqual({ code: 2, out: [], err: [`error: ${REFUSED}`] });
    expect(await h().deps.sql`SELECT id FROM webhooks WHERE project_id = ${p.project.id}`).toHaveLength(0);
  });

  it.each([
    ['a user and a password', 'http://hookuser:pw@hooks.example.com/a'],
    ['a user only', 'https://hookuser@hooks.example.com/a'],
    ['an empty user with a password', 'https://:pw@hooks.example.com/a'],
  ])('when the URL holds %s, then it is refused', async (_, url) => {
    const p = await newProject(h().deps);

    await expect(addWebhook(h().deps, p.project.id, { url, events: ['signup'] })).rejects.toThrow(REFUSED);
  });
});

describe('a stored hook URL with credentials', () => {
  it('when it is delivered, then nothing is sent, the row is dead at once, and the password is in no error or log row', async () => {
    const p = await newProject(h().deps);
    // As `webhooks add` stored such URLs before it refused them.
    const url = withCredentials();
    const secretEnc = encryptSecret(
      await loadSecretsKey(h().deps.config),
      'whsec_test',
      webhookSecretContext(p.project.id, url),
    );
    const hook = await insertWebhook(h().deps.sql, { projectId: p.project.id, url, secretEnc, events: ['signup'] });
    const destination = `webhook:${hook.id}`;
    await insertDeliveries(h().deps.sql, [
      { projectId: p.project.id, destination, eventKey: 'signup:x:u-1', eventTime: new Date(), payload: { a: 1 } },
    ]);
    const before = receiver.hits.length;

    const out = await deliverAt(h().deps, p, destination, Date.now() + 1000);

    expect(out).toMatchObject({ claimed: 1, sent: 0, dead: 1, retry: false });
    expect(receiver.hits.length - before).toBe(0);
    const [row] = await deliveryRows(h().deps, p);
    expect([row?.status, row?.last_error]).toEqual([
      'dead',
      'HTTP 0: bad_url: the URL holds credentials (user:password@), which are never sent',
    ]);
    expect(JSON.stringify(await attemptRows(h().deps, p))).not.toContain(PASSWORD);
  });
});

describe('redactUserinfo', () => {
  it('when a text quotes URLs with credentials, then only their user:password@ part is replaced', () => {
    const text = `fetch failed for http://u:${PASSWORD}@a.example/hook and https://b.example/x?u=1 (see ftp://x@c.example)`;

    expect(redactUserinfo(text)).toBe(
      'fetch failed for http://***@a.example/hook and https://b.example/x?u=1 (see ftp://***@c.example)',
    );
  });
});
