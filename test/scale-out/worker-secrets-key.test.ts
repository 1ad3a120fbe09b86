// README "Configuration", SECRETS_KEY: "Required with DATABASE_URL … use the same value in every
// process." The Meta install referrer resolver runs in the worker (attribution jobs) and opens the
// project's Meta referrer key with SECRETS_KEY. A worker started without it used to start without a
// word and record every install Meta claimed as organic, for good. Now a process that runs jobs
// refuses to start without the key; an api still starts (its secret routes answer the documented
// 503) and says so; and an install waits, pending, for a worker that has the key.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { setNetworkCampaignId } from '../../src/domain/campaigns/set-network-campaign-id.ts';
import { setMetaReferrerKey } from '../../src/domain/projects/set-meta-referrer-key.ts';
import type { Sql } from '../../src/store/postgres/pool.ts';
import type { Front } from '../support/ch-front.ts';
import { META_PLAINTEXT, metaInstallRef, sealMeta } from '../support/meta-referrer.ts';
import { clientPost } from './drive.ts';
import {
  type Banner,
  banner,
  canRunRoles,
  closeRoleStores,
  openRoleStores,
  type RoleProc,
  type Stack,
  startRole,
  until,
  waitForLog,
} from './roles.ts';

let front: Front;
let stack: Stack;
let env: Record<string, string>;
let api: RoleProc;
let creds: Banner;
const metaKey = randomBytes(32).toString('hex');

beforeAll(async () => {
  if (!canRunRoles) {
    return;
  }
  ({ front, stack, env } = await openRoleStores());
  api = await startRole('api', env);
  await api.child.waitFor('Server listening', 120_000);
  creds = banner(api.child.stdout()) as Banner;
  const sql = stack.sql as unknown as Sql;
  const config = loadConfig({ DATABASE_URL: stack.databaseUrl, SECRETS_KEY: stack.secretsKey });
  await setMetaReferrerKey({ sql, config }, creds.projectId, { key: metaKey });
  const res = await fetch(`${api.baseUrl}/api/v1/create-campaign`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'service-key': creds.serverKey },
    body: JSON.stringify({ name: 'Meta spring', ad_network: 'META' }),
  });
  const displayId = ((await res.json()) as { data: { display_id: string } }).data.display_id;
  await setNetworkCampaignId({ sql }, creds.projectId, { displayId, networkCampaignId: META_PLAINTEXT.campaign_id });
}, 180_000);

afterAll(async () => {
  await closeRoleStores({ front, stack });
});

async function metaInstall(): Promise<string> {
  const iid = randomUUID();
  const ref = metaInstallRef(sealMeta(JSON.stringify(META_PLAINTEXT), metaKey));
  const r = await clientPost(api.baseUrl, 'init', {
    token: creds.token,
    platform: 'ANDROID',
    install_instance_id: iid,
    device_data: { meta_install_ref: ref, system_version: '14' },
  });
  expect(r.status).toBe(202);
  return iid;
}

async function decided(iid: string): Promise<{ status: string; method: string | null }> {
  let row: { status: string; method: string | null } | undefined;
  await until(
    `install ${iid} decided`,
    async () => {
      [row] = await stack.sql<{ status: string; method: string | null }[]>`
        SELECT attribution_status AS status, attribution_method AS method FROM installs
        WHERE project_id = ${creds.projectId} AND install_instance_id = ${iid}`;
      return row !== undefined && row.status !== 'pending';
    },
    30_000,
  ).catch(() => {});
  return row ?? { status: 'missing', method: null };
}

describe.skipIf(!canRunRoles)('processes without SECRETS_KEY beside an api that has it', () => {
  it('when the worker has SECRETS_KEY, then an install Meta claims is attributed by meta_referrer (control)', async () => {
    const worker = await startRole('worker', env);
    await waitForLog(worker, 'workers started', 120_000);
    const iid = await metaInstall();
    expect(await decided(iid)).toEqual({ status: 'decided', method: 'meta_referrer' });
    await worker.stop();
  }, 180_000);

  it('when a worker starts without SECRETS_KEY in service mode, then it refuses: exit 1, a message naming SECRETS_KEY, no workers started', async () => {
    const { SECRETS_KEY: _omit, ...noKey } = env;
    const worker = await startRole('worker', noKey);
    const exit = await worker.child.waitExit(60_000);
    expect(exit.code).toBe(1);
    expect(worker.child.stderr()).toContain(
      "Invalid configuration:\n  SECRETS_KEY: not set, and DATABASE_URL is (service mode): ROLE 'worker' runs the jobs that read stored secrets.",
    );
    expect(worker.logs().some((l) => l.msg === 'workers started')).toBe(false);
  }, 90_000);

  it('when an api starts without SECRETS_KEY, then it serves, warns naming SECRETS_KEY, and a route that seals a secret answers the documented 503', async () => {
    const { SECRETS_KEY: _omit, ...noKey } = env;
    const other = await startRole('api', noKey);
    await other.child.waitFor('Server listening', 120_000);
    expect(other.logs().find((l) => l.level === 40 && String(l.msg).includes('SECRETS_KEY'))).toBeDefined();
    const res = await fetch(`${other.baseUrl}/api/v1/connections/meta`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'service-key': creds.serverKey },
      body: JSON.stringify({ dataset_id: '123456', access_token: 'A'.repeat(30), active: true }),
    });
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      msg: 'Secrets are not configured on this server (SECRETS_KEY). Ask its operator.',
      status: 503,
    });
    await other.stop();
  }, 180_000);

  it('when no worker with the key runs, then an install Meta claims stays pending; a worker with the key then decides it meta_referrer', async () => {
    const iid = await metaInstall();
    await new Promise((r) => setTimeout(r, 3000));
    const [row] = await stack.sql<{ status: string }[]>`
      SELECT attribution_status AS status FROM installs
      WHERE project_id = ${creds.projectId} AND install_instance_id = ${iid}`;
    expect(row?.status).toBe('pending');
    const worker = await startRole('worker', env);
    await waitForLog(worker, 'workers started', 120_000);
    expect(await decided(iid)).toEqual({ status: 'decided', method: 'meta_referrer' });
    await worker.stop();
  }, 180_000);
});
