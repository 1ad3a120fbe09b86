// What the operator CLI prints (runCli in-process against the test Postgres, output captured, as
// the other test/cli files do). README "CLI": results on stdout, warnings on stderr, --json one
// JSON value; text output is a table or lines an operator reads in a terminal, so a value from
// outside (an install id an SDK client sent, a receiver's answer, a pasted name) is printed with its
// control characters escaped, and names with control characters are refused (exit 2).
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.ts';
import { table } from '../../src/cli/table.ts';
import { addWebhook } from '../../src/domain/deliveries/add-webhook.ts';
import { insertDeliveries } from '../../src/store/postgres/deliveries.ts';
import { ANDROID_UA, attribute, init, post } from '../support/client.ts';
import { deliverAt, deliveryEnv, deliveryRows } from '../support/deliveries.ts';
import { FakeWebhook } from '../support/fake-webhook.ts';
import { newProject, testEnv, useHarness } from '../support/harness.ts';

const h = useHarness({ env: { ...deliveryEnv(), RATE_LIMITS_ENABLED: 'false' } });
const receiver = new FakeWebhook();
const dirs: string[] = [];
let env: Record<string, string | undefined>;
beforeAll(async () => {
  env = await testEnv(deliveryEnv());
  dirs.push(env.DATA_DIR as string);
  await receiver.start();
});
afterAll(async () => {
  await receiver.stop();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

type Run = { code: number; out: string; err: string };

async function cli(...argv: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, env, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

// Everything escapeControlChars escapes except the newline, which a line count checks.
const RAW_CONTROL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to find raw control characters
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const FORGED = '\n999 meta Purchase:forged dead: HTTP 200\u001b[2J\u001b]0;owned\u0007';

describe('text output of values that came from an SDK client or a webhook receiver', () => {
  // An install id is any string up to 128 characters (readInstallId): anyone holding the project
  // token (it ships in the app) can send one with a newline or terminal escape sequences, and a
  // webhook delivery's event key is `install:<install id>:<user id>`.
  it('when a dead webhook delivery carries an install id with a newline and escape codes, then the listing keeps one line per delivery and prints no raw control characters', async () => {
    const p = await newProject(h().deps);
    const hook = await addWebhook(h().deps, p.project.id, { url: receiver.url, events: ['install'] });
    const iid = `evil-${randomUUID().slice(0, 8)}${FORGED}`;
    const res = await post(
      h(),
      'init',
      { token: p.token, platform: 'ANDROID', install_instance_id: iid, device_data: {} },
      { remoteAddress: '10.9.8.7', headers: { 'user-agent': ANDROID_UA } },
    );
    expect(res.statusCode).toBe(202);
    await attribute(h(), p, iid);
    receiver.failNext(1, 410);
    await deliverAt(h().deps, p, `webhook:${hook.id}`);
    expect((await deliveryRows(h().deps, p)).map((r) => r.status)).toEqual(['dead']);

    const r = await cli('deliveries', 'dead-letters', '--project', p.project.id);

    expect(r.code, r.err).toBe(0);
    expect(r.out.split('\n'), 'one dead delivery printed as more than one line').toHaveLength(1);
    expect(RAW_CONTROL.test(r.out), 'raw ESC/BEL reach the terminal').toBe(false);
    expect(r.out).toContain('\\n999 meta Purchase:forged dead: HTTP 200\\x1b[2J\\x1b]0;owned\\x07');
  });

  it('when a dead delivery reason holds CR, CSI, a line separator and a bidi override, then they are escaped too', async () => {
    const p = await newProject(h().deps);
    await insertDeliveries(h().deps.sql, [
      {
        projectId: p.project.id,
        destination: 'webhook:1',
        eventKey: 'install:i\r:',
        eventTime: new Date(),
        payload: {},
      },
    ]);
    await h().deps.sql`
      UPDATE deliveries SET status = 'dead', last_error = ${'HTTP 410: a\u009b2Jb\u2028c\u202egnp.exe'}
      WHERE project_id = ${p.project.id}`;

    const r = await cli('deliveries', 'dead-letters', '--project', p.project.id);

    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^\d+ webhook:1 install:i\\r: dead: HTTP 410: a\\x9b2Jb\\u2028c\\u202egnp\.exe$/);
  });

  it('when --json, then the same dead delivery is one parseable JSON value that keeps the install id exactly', async () => {
    const p = await newProject(h().deps);
    const key = 'install:a\nb\u001b[31m:';
    await insertDeliveries(h().deps.sql, [
      { projectId: p.project.id, destination: 'webhook:1', eventKey: key, eventTime: new Date(), payload: {} },
    ]);
    await h().deps
      .sql`UPDATE deliveries SET status = 'dead', last_error = 'HTTP 410: ' WHERE project_id = ${p.project.id}`;

    const r = await cli('deliveries', 'dead-letters', '--project', p.project.id, '--json');

    expect(r.code, r.err).toBe(0);
    expect(r.out.split('\n')).toHaveLength(1);
    expect(JSON.parse(r.out)).toMatchObject([{ event: key, status: 'dead' }]);
  });

  it('when skan dry-run samples an iOS install whose id holds a newline and escape codes, then its table row stays one line', async () => {
    const p = await newProject(h().deps);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'cli-output-'));
    dirs.push(dir);
    const file = path.join(dir, 'skan.json');
    await writeFile(file, JSON.stringify({ rules: [{ fine: 5, coarse: 'medium', conditions: [{ type: 'signup' }] }] }));
    expect((await cli('skan', 'set-schema', '--project', p.project.id, '--file', file)).code).toBe(0);
    const iid = `ios-${randomUUID().slice(0, 8)}${FORGED}`;
    expect((await init(h(), p.token, { install_instance_id: iid, platform: 'IOS' })).statusCode).toBe(202);
    const user = { token: p.token, platform: 'IOS', install_instance_id: iid, user_data: { id: 'u1' } };
    expect((await post(h(), 'trigger', user)).statusCode).toBe(200);

    const r = await cli('skan', 'dry-run', '--project', p.project.id, '--file', file);

    expect(r.code, r.err).toBe(0);
    const lines = r.out.split('\n');
    expect(lines[0]).toMatch(/^install +window +fine/);
    expect(lines.filter((l) => l.startsWith('ios-'))).toHaveLength(1);
    expect(lines.some((l) => l.startsWith('999 '))).toBe(false);
    expect(RAW_CONTROL.test(r.out)).toBe(false);
  });

  it('when a table cell (a ClickHouse reason, a name) holds control characters, then table() escapes them and keeps the columns aligned', () => {
    const t = table(
      ['id', 'reason', 'n'],
      [
        ['1', 'Cannot parse\n\u001b[2J', '7'],
        ['22', 'ok', '8'],
      ],
    );

    expect(t.split('\n')).toEqual([
      `id  ${'reason'.padEnd(21)}  n`,
      '1   Cannot parse\\n\\x1b[2J  7',
      `22  ${'ok'.padEnd(21)}  8`,
    ]);
  });
});

describe('names with control characters', () => {
  // createProject trimmed the name and checked its length only: a name pasted with a newline was
  // stored, and `projects list` printed its row in two (the zone, currency and token under the id).
  it('when a project name holds a newline, then it is refused (exit 2 naming --name) or the table keeps the project on one line', async () => {
    const name = `Shop\napp ${randomUUID().slice(0, 6)}`;

    const created = await cli('projects', 'create', '--name', name, '--json');

    expect(created.code).toBe(2);
    expect(created.err).toContain('--name');
    const [row] = await h().deps.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM projects WHERE name = ${name}`;
    expect(row?.n).toBe(0);
  });

  it('when a name holds a tab, ESC, DEL, a C1 control or a bidi override, then project, store listing and network account names are refused naming --name', async () => {
    const p = await newProject(h().deps);
    const names = ['Shop\tapp', 'Shop\u001b[31mapp', 'Shop\u007f', 'Shop\u0085app', 'Shop\u202eppa'];
    const url = 'https://play.google.com/store/apps/details?id=com.example';

    const seen = [];
    for (const name of names) {
      const project = await cli('projects', 'create', '--name', name);
      const listing = await cli(
        ...['store-listings', 'add', '--project', p.project.id, '--platform', 'ANDROID', '--name', name, '--url', url],
      );
      const account = await cli(
        'network-accounts',
        'add',
        '--project',
        p.project.id,
        '--network',
        'TIKTOK',
        '--name',
        name,
      );
      seen.push([project, listing, account].map((r) => `${r.code} ${r.err.includes('--name')}`).join(', '));
    }

    expect(seen).toEqual(names.map(() => '2 true, 2 true, 2 true'));
    const [row] = await h().deps.sql<{ n: number }[]>`
      SELECT (SELECT count(*) FROM store_listings WHERE project_id = ${p.project.id})::int
        + (SELECT count(*) FROM network_accounts WHERE project_id = ${p.project.id})::int AS n`;
    expect(row?.n).toBe(0);
  });

  it('when a name is pasted with its trailing newline, then it is trimmed and accepted', async () => {
    const name = `Pasted ${randomUUID().slice(0, 6)}`;

    const created = await cli('projects', 'create', '--name', `${name}\n`, '--json');

    expect(created.code, created.err).toBe(0);
    expect(JSON.parse(created.out)).toMatchObject({ name });
  });

  it('when a project stored earlier holds a newline in its name, then projects list keeps its id and token on one line', async () => {
    const p = await newProject(h().deps);
    await h().deps.sql`UPDATE projects SET name = ${'Old\nname\u001b[2J'} WHERE id = ${p.project.id}`;

    const list = await cli('projects', 'list');

    expect(list.code, list.err).toBe(0);
    const row = list.out.split('\n').find((l) => l.includes(p.token)) ?? '';
    expect(row).toContain(p.project.id);
    expect(row).toContain('Old\\nname\\x1b[2J');
    expect(RAW_CONTROL.test(list.out)).toBe(false);
  });

  it('when names hold commas, quotes and unicode, then --json round-trips them exactly', async () => {
    const name = `Acme, "Spring" — 春 😀 ${randomUUID().slice(0, 6)}`;

    const created = await cli('projects', 'create', '--name', name, '--json');
    const list = await cli('projects', 'list', '--json');

    expect(created.code, created.err).toBe(0);
    const id = (JSON.parse(created.out) as { id: string }).id;
    expect((JSON.parse(list.out) as { id: string; name: string }[]).find((x) => x.id === id)?.name).toBe(name);
  });
});
