// Click to attribution end to end through the real workers (jobs/worker.ts startWorkers: queue
// workers plus the fact writer): a counted click on the campaign link, an init whose Play referrer
// carries the click id, then attribution-data polled as apps do until it is no longer pending. The
// click reaches ClickHouse only through the fact writer, so the job first retries while it is on its
// way. Once on BullMQ with the run's Redis (skipped with the reason when the run has none), once on
// the in-process queue, which runs everywhere. The BullMQ harness uses a Redis db index of this
// process's own (processRedisUrl): queue names are fixed, and a worker of another test process (with
// its own database) would take this process's job, find no install and drop it.
import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { startWorkers } from '../../jobs/worker.ts';
import {
  ANDROID_UA,
  attributionData,
  attributionFacts,
  campaignWithListings,
  clickLink,
  init,
  installEvents,
  processRedisUrl,
  type Res,
  randomIp,
} from '../support/client.ts';
import { closeHarness, type Harness, makeHarness, newProject } from '../support/harness.ts';

const POLL_MS = 200;
const DEADLINE_MS = 20_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Calls `read` until `done` holds or 20 s have passed; returns the last value. */
async function pollUntil<T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + DEADLINE_MS;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await sleep(POLL_MS);
    value = await read();
  }
  return value;
}

async function clickToAttribution(h: Harness): Promise<void> {
  const p = await newProject(h.deps);
  const campaign = await campaignWithListings(h.deps, p);
  const ip = randomIp();
  const { clickId, referrer } = await clickLink(h, campaign, { ip, userAgent: ANDROID_UA });
  const iid = randomUUID();

  const accepted = await init(
    h,
    p.token,
    {
      install_instance_id: iid,
      device_data: { install_ref: referrer, system_version: '14', device_name: 'samsung SM-S911B' },
    },
    ip,
  );
  const answer = await pollUntil<Res>(
    () => attributionData(h, p.token, iid),
    (r) => r.statusCode !== 200 || r.json().data.processing !== true,
  );
  const facts = await pollUntil(
    () => attributionFacts(h.deps, p),
    (rows) => rows.length > 0,
  );
  const events = await pollUntil(
    () => installEvents(h.deps, p),
    (rows) => rows.length > 0,
  );

  expect(accepted.statusCode).toBe(202);
  expect(answer.statusCode).toBe(200);
  expect(answer.json()).toMatchObject({
    msg: 'Attribution data fetched successfully',
    status: 200,
    data: {
      deeplink: 'myapp://promo/spring',
      campaign_data: { id: campaign.displayId, name: 'Spring', type: 'INORGANIC' },
    },
  });
  expect(facts).toEqual([
    {
      install_instance_id: iid,
      kind: 'install',
      method: 'play_referrer',
      attribution_type: 'INORGANIC',
      campaign_id: campaign.id,
      display_id: campaign.displayId,
      click_id: clickId,
    },
  ]);
  expect(events).toEqual([{ install_instance_id: iid, kind: 'install' }]);
}

describe('attribution worker', () => {
  it.skipIf(!inject('redisUrl'))(
    'when the run has Redis (needs Redis: BullMQ), then a real BullMQ worker attributes a click end to end',
    async () => {
      const h = await makeHarness({ env: { RATE_LIMITS_ENABLED: 'false', REDIS_URL: processRedisUrl() ?? '' } });
      const stop = await startWorkers(h.deps);
      try {
        expect(h.deps.queue.kind).toBe('bullmq');
        await clickToAttribution(h);
      } finally {
        await stop();
        await closeHarness(h);
      }
    },
    60_000,
  );

  it('when the workers run on the in-process queue, then a click is attributed end to end', async () => {
    const h = await makeHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });
    const stop = await startWorkers(h.deps);
    try {
      expect(h.deps.queue.kind).toBe('in-process');
      await clickToAttribution(h);
    } finally {
      await stop();
      await closeHarness(h);
    }
  }, 60_000);
});
