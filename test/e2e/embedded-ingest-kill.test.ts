// Embedded mode as a user runs it (`node --import tsx src/main.ts`, no service URLs): the server is
// SIGKILLed (OOM killer, `kill -9`) while SDKs and link clicks are being ingested, then started
// again on the same DATA_DIR. Every fact the server answered 2xx for (link clicks, installs, their
// attributions, sign-ups, events, payments) must reach the embedded ClickHouse exactly once: the
// Postgres outbox survives, chdb's data survives, and the restart's retry of the batch that was in
// flight lands no duplicate. The embedded Postgres outlives the node process (its own session)
// and is adopted by the restart.
import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { BOOT_MS, cli, parseBanner, postgresOn, readStored, STOP_MS } from '../support/embedded-kit.ts';
import { bootService, freshDataDir, removeDataDirs, serviceEnv, waitUntil } from '../support/embedded-service.ts';
import { isAlive, killStartedChildren, postmasterPid } from '../support/processes.ts';

const ANDROID_UA =
  'Mozilla/5.0 (Linux; Android 14; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36';

afterAll(async () => {
  await killStartedChildren();
  await removeDataDirs();
});

type Acked = { clicks: string[]; installs: string[]; users: string[]; events: string[]; payments: string[] };

async function call(url: string, init: RequestInit): Promise<Response | undefined> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  } catch {
    return undefined; // the server died under the request: not acked
  }
}

/** One device's flow, as the SDK runs it after a click: stops at its first step not answered 2xx. */
async function deviceFlow(base: string, token: string, displayId: string, acked: Acked): Promise<void> {
  const click = await call(`${base}/${displayId}`, { redirect: 'manual', headers: { 'user-agent': ANDROID_UA } });
  if (click?.status !== 302) {
    return;
  }
  const referrer = new URL(String(click.headers.get('location'))).searchParams.get('referrer') ?? '';
  const clickId = new URLSearchParams(referrer).get('lr_click_id') ?? '';
  acked.clicks.push(clickId);
  const iid = randomUUID();
  const userId = `u-${randomUUID()}`;
  const base_ = { token, platform: 'ANDROID', install_instance_id: iid };
  const client = (p: string, body: Record<string, unknown>) =>
    call(`${base}/api/client/${p}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': ANDROID_UA },
      body: JSON.stringify({ ...base_, ...body }),
    });
  const init = await client('init', { device_data: { install_ref: referrer, device_name: 'hunt' } });
  if (init?.status !== 202) {
    return;
  }
  acked.installs.push(iid);
  const trigger = await client('trigger', { user_data: { id: userId } });
  if (trigger?.status !== 200) {
    return;
  }
  acked.users.push(userId);
  const eventId = randomUUID();
  const event = await client('capture-event', { event_name: 'level_up', event_id: eventId, event_data: { level: 3 } });
  if (!event || event.status >= 300) {
    return;
  }
  acked.events.push(eventId);
  const paymentId = randomUUID();
  const pay = await client('capture-payment', { amount: 4.99, payment_id: paymentId, type: 'ONE_TIME' });
  if (pay?.status === 201) {
    acked.payments.push(paymentId);
  }
}

describe('embedded mode: the server SIGKILLed during ingest, then started again', () => {
  it('when SIGKILL hits mid-ingest, then after the restart every acked click, install, attribution, sign-up, event and payment is in ClickHouse exactly once', async () => {
    const dataDir = await freshDataDir();
    const env = await serviceEnv(dataDir);
    env.PUBLIC_URL = `http://127.0.0.1:${env.PORT}`;
    const base = env.PUBLIC_URL;
    const first = await bootService(env, BOOT_MS);
    const banner = parseBanner(first.stdout());

    const listing = await cli(env, [
      'store-listings',
      'add',
      '--project',
      banner.projectId,
      '--platform',
      'ANDROID',
      '--name',
      'Play',
      '--url',
      'https://play.google.com/store/apps/details?id=com.example.app',
      '--json',
    ]);
    expect(listing.proc.exitCode, listing.stderr()).toBe(0);
    const listingId = (JSON.parse(listing.stdout()) as { store_listing_id: string }).store_listing_id;
    const created = await fetch(`${base}/api/v1/create-campaign`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'service-key': banner.serverKey },
      body: JSON.stringify({ name: 'Kill test', deeplink: 'myapp://x', store_listing_ids: [listingId] }),
    });
    expect(created.status).toBe(201);
    const displayId = ((await created.json()) as { data: { display_id: string } }).data.display_id;

    const acked: Acked = { clicks: [], installs: [], users: [], events: [], payments: [] };
    let running = true;
    const workers = Array.from({ length: 6 }, async () => {
      while (running) {
        await deviceFlow(base, banner.token, displayId, acked);
      }
    });
    // Past the writer's first flushes (about once a second), so batches are moving at the kill.
    await waitUntil(() => acked.payments.length >= 40, 60_000, '40 acked payments');
    const pgPid = postmasterPid(dataDir) as number;
    first.proc.kill('SIGKILL');
    await first.waitExit(10_000);
    running = false;
    await Promise.all(workers);
    expect(isAlive(pgPid), 'the embedded Postgres outlives the node process').toBe(true);

    const second = await bootService(env, BOOT_MS);
    expect(second.stdout()).toContain('embedded postgres already running; connecting to it');
    const sql = postgres(`postgres://postgres:postgres@127.0.0.1:${env.EMBEDDED_PG_PORT}/postgres`, {
      max: 1,
      onnotice: () => {},
    });
    try {
      // Installs whose attribution job died with the process are re-enqueued by the reconciler
      // (once a minute); a batch claimed by the dead writer is retaken after 30 s.
      await waitUntil(
        async () => {
          const [r] = await sql<{ pending: number; outbox: number }[]>`
              SELECT
                (SELECT count(*)::int FROM installs WHERE project_id = ${banner.projectId}
                  AND attribution_status = 'pending' AND install_instance_id = ANY(${acked.installs})) AS pending,
                (SELECT count(*)::int FROM fact_outbox WHERE project_id = ${banner.projectId}) AS outbox`;
          return r?.pending === 0 && r.outbox === 0;
        },
        150_000,
        'acked installs decided and the fact outbox drained',
      );
    } finally {
      await sql.end({ timeout: 2 });
    }
    second.proc.kill('SIGTERM');
    expect(await second.waitExit(STOP_MS), second.stderr()).toEqual({ code: 0, signal: null });
    expect(postgresOn(dataDir), 'no Postgres left on the DATA_DIR').toEqual([]);

    const stored = await readStored(dataDir, banner.projectId);
    const verdict = (keys: string[], table: Map<string, number>) => ({
      acked: keys.length,
      lost: keys.filter((k) => !table.has(k)).length,
      dup: [...table.values()].filter((n) => n > 1).length,
    });
    const ok = (keys: string[]) => ({ acked: keys.length, lost: 0, dup: 0 });
    expect({
      clicks: verdict(acked.clicks, stored.clicks),
      installs: verdict(acked.installs, stored.installs),
      attributions: verdict(acked.installs, stored.attributions),
      signups: verdict(acked.users, stored.signups),
      events: verdict(acked.events, stored.events),
      payments: verdict(acked.payments, stored.payments),
    }).toEqual({
      clicks: ok(acked.clicks),
      installs: ok(acked.installs),
      attributions: ok(acked.installs),
      signups: ok(acked.users),
      events: ok(acked.events),
      payments: ok(acked.payments),
    });
  }, 360_000);
});
