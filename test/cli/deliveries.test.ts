// CLI of outgoing deliveries: connections set-meta / map, webhooks add, deliveries dead-letters /
// replay, catalog import / match-rate. The token is stored sealed and only a fingerprint is shown.
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.ts';
import { insertDeliveries } from '../../src/store/postgres/deliveries.ts';
import { ACCESS_TOKEN, deliveryEnv } from '../support/deliveries.ts';
import { newProject, testEnv, useHarness } from '../support/harness.ts';

const h = useHarness({ env: deliveryEnv() });

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const env = await testEnv({ SECRETS_KEY: deliveryEnv().SECRETS_KEY ?? '' });
  const code = await runCli([...args, '--json'], env, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, json: code === 0 ? JSON.parse(out.join('\n')) : undefined, err: err.join('\n') };
}

describe('connections', () => {
  it('when set-meta and map run, then the connection is active with a sealed token and the mappings are stored', async () => {
    const p = await newProject(h().deps);
    const id = p.project.id;

    const set = await cli([
      'connections',
      'set-meta',
      '--project',
      id,
      '--dataset-id',
      '987',
      '--access-token',
      ACCESS_TOKEN,
      '--active',
      'true',
    ]);
    const map = await cli([
      'connections',
      'map',
      '--project',
      id,
      '--kind',
      'payment',
      '--name',
      'DEFAULT',
      '--to',
      'Purchase',
    ]);

    expect(set.code).toBe(0);
    expect(set.json).toMatchObject({
      dataset_id: '987',
      active: true,
      graph_version: null,
      token_fingerprint: expect.stringMatching(/^[0-9a-f]{12}$/),
    });
    expect(map.json).toEqual({ kind: 'payment', name: 'DEFAULT', to: 'Purchase' });
    const [row] = await h().deps
      .sql`SELECT access_token_enc, active, activated_at FROM network_connections WHERE project_id = ${id}`;
    expect(row?.access_token_enc).toMatch(/^v1\./);
    expect(row?.access_token_enc).not.toContain(ACCESS_TOKEN);
    expect(row?.activated_at).toBeInstanceOf(Date);
  });

  it('when a mapping breaks the rules, then the CLI exits non-zero with the reason', async () => {
    const p = await newProject(h().deps);
    const r = await cli([
      'connections',
      'map',
      '--project',
      p.project.id,
      '--kind',
      'event',
      '--name',
      'buy',
      '--to',
      'Purchase',
    ]);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain("an event maps to 'AddToCart' or 'ViewContent'");
  });
});

describe('webhooks, dead letters, catalog', () => {
  it('when a webhook is added, then its secret is printed once and stored sealed', async () => {
    const p = await newProject(h().deps);
    const r = await cli([
      'webhooks',
      'add',
      '--project',
      p.project.id,
      '--url',
      'https://hooks.example.com/a',
      '--events',
      'signup',
    ]);
    expect(r.json).toMatchObject({
      url: 'https://hooks.example.com/a',
      events: ['signup'],
      secret: expect.stringMatching(/^whsec_/),
    });
    const [row] = await h().deps.sql`SELECT secret_enc FROM webhooks WHERE project_id = ${p.project.id}`;
    expect(row?.secret_enc).not.toContain(r.json.secret);
  });

  it('when dead deliveries exist, then dead-letters lists them and replay makes them pending again', async () => {
    const p = await newProject(h().deps);
    await insertDeliveries(h().deps.sql, [
      { projectId: p.project.id, destination: 'meta', eventKey: 'Purchase:x', eventTime: new Date(), payload: {} },
    ]);
    await h().deps
      .sql`UPDATE deliveries SET status = 'dead', last_error = 'HTTP 400: bad' WHERE project_id = ${p.project.id}`;

    const dead = await cli(['deliveries', 'dead-letters', '--project', p.project.id]);
    const replay = await cli(['deliveries', 'replay', '--project', p.project.id]);

    expect(dead.json).toEqual([
      expect.objectContaining({ destination: 'meta', event: 'Purchase:x', status: 'dead', reason: 'HTTP 400: bad' }),
    ]);
    expect(replay.json).toEqual({ deliveries: 1, destinations: 1 });
    const rows = await h().deps.sql`SELECT status, attempts FROM deliveries WHERE project_id = ${p.project.id}`;
    expect(rows).toEqual([{ status: 'pending', attempts: 0 }]);
  });

  it('when a catalog is imported, then match-rate is the share of sent product ids it holds', async () => {
    const p = await newProject(h().deps);
    const file = path.join(os.tmpdir(), `catalog-${p.project.id}.csv`);
    await writeFile(file, 'id,title\nsku-1,Shoe\nsku-2,Hat\nsku-3,Bag\n');
    await insertDeliveries(
      h().deps.sql,
      ['a', 'b'].map((k, i) => ({
        projectId: p.project.id,
        destination: 'meta',
        eventKey: `AddToCart:${k}`,
        eventTime: new Date(),
        payload: {},
        productIds: i === 0 ? ['sku-1', 'sku-2'] : ['sku-2', 'sku-9'],
      })),
    );
    await h().deps.sql`UPDATE deliveries SET status = 'sent' WHERE project_id = ${p.project.id}`;

    const imported = await cli(['catalog', 'import', '--project', p.project.id, '--file', file]);
    const rate = await cli(['catalog', 'match-rate', '--project', p.project.id]);

    expect(imported.json).toEqual({ rows: 3, added: 3 });
    expect(rate.json).toEqual({ forwarded: 3, matched: 2, rate: 2 / 3, meets_recommendation: false });
  });
});

describe('long values', () => {
  it('when a catalog id is longer than 500 characters, then the import exits 2 naming its row and stores nothing', async () => {
    const p = await newProject(h().deps);
    const file = path.join(os.tmpdir(), `catalog-long-${p.project.id}.csv`);
    // Random four-byte characters: Postgres compresses an index entry before its size check.
    const long = Array.from({ length: 700 }, () => String.fromCodePoint(0x1f300 + Math.floor(Math.random() * 0x700)));
    await writeFile(file, `id\nsku-1\n${long.join('')}\n`);

    const res = await cli(['catalog', 'import', '--project', p.project.id, '--file', file]);
    const stored = await h().deps.sql`SELECT 1 FROM catalog_products WHERE project_id = ${p.project.id}`;

    expect([res.code, res.err]).toEqual([
      2,
      'error: data row 2: a product id is at most 500 characters, without NUL; nothing was imported',
    ]);
    expect(stored).toHaveLength(0);
  });

  it('when a webhook URL is longer than 2,048 characters written out, then add exits 2 and stores nothing', async () => {
    const p = await newProject(h().deps);
    const url = `https://hooks.example.com/${'é'.repeat(700)}`;

    const res = await cli(['webhooks', 'add', '--project', p.project.id, '--url', url]);
    const stored = await h().deps.sql`SELECT 1 FROM webhooks WHERE project_id = ${p.project.id}`;

    expect([res.code, res.err]).toEqual([2, 'error: --url is at most 2048 characters (percent-encoded)']);
    expect(stored).toHaveLength(0);
  });
});
