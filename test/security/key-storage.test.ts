// Catalog §4d D3 and I7: secrets live in Postgres only hashed (server keys, MCP tokens and RevenueCat
// tokens: sha256) or sealed under SECRETS_KEY (Meta access token, FCM/APNs credentials, webhook
// secrets). After a project gets a key, a rotated key, a Meta connection (through the API), push
// credentials and a webhook, and then MCP tokens and RevenueCat tokens that are used, rotated and
// revoked, every row of every table of this process's database is dumped (pg_dump when installed,
// and a SELECT of every base table; ClickHouse's tables too for the tokens) and searched for each
// raw secret: 0 hits.
// The catalog's timing probe (Welch t over 20k requests) is secondary and is not run here: a timing
// assertion does not belong in a test on a shared 2-core machine (STYLE: timings go to the bench),
// and keys are looked up by their sha256, never compared byte by byte.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { addWebhook } from '../../src/domain/deliveries/add-webhook.ts';
import { createMcpToken } from '../../src/domain/mcp/create-mcp-token.ts';
import { revokeMcpToken } from '../../src/domain/mcp/revoke-mcp-token.ts';
import { rotateServerKey } from '../../src/domain/projects/rotate-server-key.ts';
import { setPushCredentials } from '../../src/domain/uninstalls/set-push-credentials.ts';
import { registeredUser } from '../support/commerce.ts';
import { newProject, processDatabaseUrl, useHarness } from '../support/harness.ts';
import { figure } from '../support/security-routes.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false', SECRETS_KEY: 'cd'.repeat(32) } });

const META_TOKEN = 'EAAGsecuritySuiteMetaToken0123456789abcdefXYZ';
const PRIVATE_KEY_BODY = 'MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQgSecuritySuitePushKey';
const PEM = `-----BEGIN PRIVATE KEY-----\n${PRIVATE_KEY_BODY}\n-----END PRIVATE KEY-----\n`;
const FCM_EMAIL_USER = 'push-sender-security-suite';

async function pgDump(): Promise<string | undefined> {
  try {
    const { stdout } = await promisify(execFile)('pg_dump', ['--data-only', await processDatabaseUrl()], {
      maxBuffer: 512 * 1024 * 1024,
    });
    return stdout;
  } catch {
    return undefined; // no pg_dump (or another major version): the SELECT scan below still runs
  }
}

/** Every row of every base table as text, one string per table. */
async function selectAll(): Promise<Map<string, string>> {
  const { sql } = h().deps;
  const tables = await sql<{ schema: string; name: string }[]>`
    SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
    WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`;
  const out = new Map<string, string>();
  for (const t of tables) {
    const rows = await sql<{ r: string }[]>`SELECT t::text AS r FROM ${sql(t.schema)}.${sql(t.name)} t`;
    out.set(`${t.schema}.${t.name}`, rows.map((x) => x.r).join('\n'));
  }
  return out;
}

const sha = (k: string) => createHash('sha256').update(k).digest('hex');

describe('D3 secrets at rest', () => {
  it('when a project has keys, a Meta connection, push credentials and a webhook, then no table holds any raw secret', async () => {
    const { app, deps } = h();
    const p = await newProject(deps);
    const { serverKey: rotated } = await rotateServerKey(deps, p.project.id);
    const meta = await app.inject({
      method: 'PUT',
      url: '/api/v1/connections/meta',
      headers: { 'service-key': rotated },
      payload: { dataset_id: '987654321', access_token: META_TOKEN, active: true },
    });
    expect(meta.statusCode).toBe(200);
    expect(meta.body).not.toContain(META_TOKEN);
    await setPushCredentials(deps, p.project.id, 'FCM', {
      project_id: 'fcm-project',
      client_email: `${FCM_EMAIL_USER}@fcm-project.iam.gserviceaccount.com`,
      private_key: PEM,
    });
    await setPushCredentials(deps, p.project.id, 'APNS', {
      key_id: 'ABCDE12345',
      team_id: 'TEAM123456',
      bundle_id: 'com.example.app',
      private_key: PEM,
    });
    const hook = await addWebhook(deps, p.project.id, { url: 'https://hooks.example.com/in', events: ['install'] });

    const secrets: Record<string, string> = {
      'first server key': p.serverKey,
      'first server key (random part)': p.serverKey.slice(3),
      'rotated server key': rotated.slice(3),
      'server key as hex': Buffer.from(rotated).toString('hex'),
      'meta access token': META_TOKEN,
      'push private key': PRIVATE_KEY_BODY,
      'fcm client email': FCM_EMAIL_USER,
      'webhook secret': hook.secret.slice(6),
    };
    const dump = await pgDump();
    const tables = await selectAll();
    const hits: string[] = [];
    for (const [what, secret] of Object.entries(secrets)) {
      if (dump?.includes(secret)) {
        hits.push(`pg_dump: ${what}`);
      }
      for (const [table, text] of tables) {
        if (text.includes(secret)) {
          hits.push(`${table}: ${what}`);
        }
      }
    }
    figure('D3 secrets at rest', {
      secrets: Object.keys(secrets).length,
      tables: tables.size,
      pg_dump_bytes: dump?.length ?? 'unavailable',
      raw_hits: hits.length,
    });

    expect(tables.has('public.server_keys')).toBe(true);
    expect(hits).toEqual([]);
    // The key rows hold exactly the sha256 digests.
    const stored = await deps.sql<{ hash: string }[]>`
      SELECT encode(key_hash, 'hex') AS hash FROM server_keys WHERE project_id = ${p.project.id} ORDER BY id`;
    expect(stored.map((r) => r.hash)).toEqual([sha(p.serverKey), sha(rotated)]);
  });
});

/** Every row of every ClickHouse table of this process, as JSON text, one string per table. */
async function selectAllClickHouse(): Promise<Map<string, string>> {
  const { ch } = h().deps;
  const tables = (await (
    await ch.query({
      query: `SELECT name FROM system.tables WHERE database = currentDatabase()
        AND engine NOT IN ('MaterializedView', 'View')`,
      format: 'JSONEachRow',
    })
  ).json()) as { name: string }[];
  const out = new Map<string, string>();
  for (const { name } of tables) {
    const rows = await (await ch.query({ query: `SELECT * FROM ${name}`, format: 'JSONEachRow' })).json();
    out.set(`ch.${name}`, JSON.stringify(rows));
  }
  return out;
}

describe('D3 MCP and RevenueCat tokens at rest', () => {
  it('when MCP tokens are issued, used and revoked and RevenueCat tokens issued, rotated and used, then no table holds any of them', async () => {
    const { app, deps } = h();
    const { p } = await registeredUser(h(), 'rc-user');
    const mcp = await createMcpToken(deps, p.project.id, { name: 'used' });
    const revoked = await createMcpToken(deps, p.project.id, { name: 'revoked' });
    const connect = async () =>
      (await app.inject({ method: 'PUT', url: '/api/v1/connections/revenuecat', headers: p.headers })).json().data
        .authorization_token as string;
    const firstRc = await connect();
    const rc = await connect();
    for (const token of [mcp.token, revoked.token]) {
      const res = await app.inject({
        method: 'POST',
        url: `/mcp/${token}`,
        payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_project_info' } },
      });
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain(token.slice(4));
    }
    await revokeMcpToken(deps, p.project.id, String(revoked.record.id));
    const event = { type: 'INITIAL_PURCHASE', id: 'evt-ks', app_user_id: 'rc-user', environment: 'PRODUCTION' };
    const hook = await app.inject({
      method: 'POST',
      url: '/webhook/revenuecat',
      headers: { authorization: `Bearer ${rc}` },
      payload: { event: { ...event, transaction_id: 'txn-ks', price: 4.99, currency: 'USD' } },
    });
    expect(hook.json().data.result).toBe('stored');
    const stale = await app.inject({
      method: 'POST',
      url: '/webhook/revenuecat',
      headers: { authorization: firstRc },
      payload: { event },
    });
    expect(stale.statusCode).toBe(401);
    const status = await app.inject({ method: 'GET', url: '/api/v1/connections/revenuecat', headers: p.headers });
    expect(status.body).not.toContain(rc.slice(3));

    const secrets: Record<string, string> = {
      'MCP token': mcp.token.slice(4),
      'revoked MCP token': revoked.token.slice(4),
      'MCP token as hex': Buffer.from(mcp.token).toString('hex'),
      'RevenueCat token': rc.slice(3),
      'rotated RevenueCat token': firstRc.slice(3),
      'RevenueCat token as hex': Buffer.from(rc).toString('hex'),
    };
    const dump = await pgDump();
    const tables = new Map([...(await selectAll()), ...(await selectAllClickHouse())]);
    const hits: string[] = [];
    for (const [what, secret] of Object.entries(secrets)) {
      if (dump?.includes(secret)) {
        hits.push(`pg_dump: ${what}`);
      }
      for (const [table, text] of tables) {
        if (text.includes(secret)) {
          hits.push(`${table}: ${what}`);
        }
      }
    }
    figure('D3 tokens at rest', {
      secrets: Object.keys(secrets).length,
      tables: tables.size,
      pg_dump_bytes: dump?.length ?? 'unavailable',
      raw_hits: hits.length,
    });

    expect(tables.has('public.mcp_tokens') && tables.has('public.revenuecat_connections')).toBe(true);
    expect(hits).toEqual([]);
    const mcpRows = await deps.sql<{ hash: string; prefix: string }[]>`
      SELECT encode(token_hash, 'hex') AS hash, token_prefix AS prefix FROM mcp_tokens
      WHERE project_id = ${p.project.id} ORDER BY id`;
    const [rcRow] = await deps.sql<{ hash: string; prefix: string }[]>`
      SELECT encode(token_hash, 'hex') AS hash, token_prefix AS prefix FROM revenuecat_connections
      WHERE project_id = ${p.project.id}`;
    expect(mcpRows).toEqual([
      { hash: sha(mcp.token), prefix: mcp.token.slice(0, 8) },
      { hash: sha(revoked.token), prefix: revoked.token.slice(0, 8) },
    ]);
    expect(rcRow).toEqual({ hash: sha(rc), prefix: rc.slice(0, 7) });
  });
});
