// Probabilistic matching through the real link handler, init and attribution job. README
// "Attribution": fingerprint = same IP, matching OS, OS major version and model within the
// fingerprint window; a shared IP with another device stays organic, and a click that already
// decided an install matches no other by fingerprint; within a method the last eligible click wins;
// windows per project (`projects set-attribution`).
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { attributeInstalls } from '../../../src/domain/attribution/attribute-install.ts';
import { createPool } from '../../../src/store/postgres/pool.ts';
import {
  baseInstant,
  cli,
  clickAt,
  decide,
  flushFacts,
  HOUR,
  initAt,
  SAMSUNG_DEVICE,
  SAMSUNG_UA,
} from '../../support/attribution-kit.ts';
import { campaignWithListings, randomIp } from '../../support/client.ts';
import { newProject, processDatabaseUrl, testEnv, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false', LOOKUP_CACHE_TTL_MS: '0' } });
let cliEnv: Record<string, string | undefined>;
beforeAll(async () => {
  cliEnv = await testEnv();
});

// Safari on iOS 26 freezes the OS in its UA at 18_6 (WebKit, Sept. 2025); the device reports 26.x.
const IOS26_SAFARI_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.0 Mobile/15E148 Safari/604.1';
const IOS17_SAFARI_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const PIXEL_UA =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36';

async function project() {
  const p = await newProject(h().deps);
  const a = await campaignWithListings(h().deps, p, { name: 'A' });
  const b = await campaignWithListings(h().deps, p, { name: 'B' });
  return { p, a, b };
}

async function setAttribution(projectId: string, ...flags: string[]) {
  const r = await cli(cliEnv, ['projects', 'set-attribution', '--project', projectId, ...flags, '--json']);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out);
}

describe('fingerprint: device traits', () => {
  it('when an iOS 17 iPhone clicks in Safari and installs from the same IP, then it is matched by fingerprint', async () => {
    const { p, a } = await project();
    const ip = randomIp();
    const t = baseInstant();
    const click = await clickAt(h(), p, a.displayId, { ms: t - HOUR, ip, ua: IOS17_SAFARI_UA });
    await flushFacts(h());
    const iid = await initAt(h(), p, {
      ms: t,
      ip,
      platform: 'IOS',
      deviceData: { device: 'iPhone', system_version: '17.4.1' },
    });

    const d = await decide(h(), p, iid);

    expect(d).toMatchObject({ method: 'fingerprint', campaignId: a.id });
    expect(d?.click?.clickId).toBe(click.clickId);
  });

  it('when an iOS 26 iPhone clicks in Safari (UA frozen at iPhone OS 18_6) and installs from the same IP, then it is matched by fingerprint', async () => {
    const { p, a } = await project();
    const ip = randomIp();
    const t = baseInstant();
    await clickAt(h(), p, a.displayId, { ms: t - HOUR, ip, ua: IOS26_SAFARI_UA });
    await flushFacts(h());
    const iid = await initAt(h(), p, {
      ms: t,
      ip,
      platform: 'IOS',
      deviceData: { device: 'iPhone', system_version: '26.0.1' },
    });

    const d = await decide(h(), p, iid);

    // Was: organic, candidate ineligible "device differs: os version 18.6 vs 26.0.1".
    expect(d?.candidates).toEqual([expect.objectContaining({ method: 'fingerprint', outcome: 'won' })]);
    expect(d).toMatchObject({ method: 'fingerprint', campaignId: a.id, attributionType: 'INORGANIC' });
  });
});

describe('fingerprint: shared IPs', () => {
  it('when two devices of different models click different campaigns behind one IP, then each install gets its own click', async () => {
    const { p, a, b } = await project();
    const ip = randomIp();
    const t = baseInstant();
    const samsung = await clickAt(h(), p, a.displayId, { ms: t - 2 * HOUR, ip, ua: SAMSUNG_UA });
    const pixel = await clickAt(h(), p, b.displayId, { ms: t - HOUR, ip, ua: PIXEL_UA });
    await flushFacts(h());
    const samsungInstall = await initAt(h(), p, { ms: t, ip, deviceData: SAMSUNG_DEVICE });
    const pixelInstall = await initAt(h(), p, {
      ms: t + 1000,
      ip,
      deviceData: { system_version: '14', device_name: 'Google Pixel 8' },
    });

    const ds = await decide(h(), p, samsungInstall);
    const dp = await decide(h(), p, pixelInstall);

    expect([ds?.click?.clickId, ds?.campaignId]).toEqual([samsung.clickId, a.id]);
    expect([dp?.click?.clickId, dp?.campaignId]).toEqual([pixel.clickId, b.id]);
  });

  it('when one click is followed by two installs of the same model from its IP, then the click attributes one install only', async () => {
    const { p, a } = await project();
    const ip = randomIp();
    const t = baseInstant();
    const click = await clickAt(h(), p, a.displayId, { ms: t - HOUR, ip, ua: SAMSUNG_UA });
    await flushFacts(h());
    // Two phones (own advertising ids) behind one carrier NAT; only one of them clicked.
    const first = await initAt(h(), p, { ms: t, ip, deviceData: { ...SAMSUNG_DEVICE, gaid: randomUUID() } });
    const second = await initAt(h(), p, {
      ms: t + 60_000,
      ip,
      deviceData: { ...SAMSUNG_DEVICE, gaid: randomUUID() },
    });

    const d1 = await decide(h(), p, first);
    const d2 = await decide(h(), p, second);

    expect(d1).toMatchObject({ method: 'fingerprint', campaignId: a.id });
    expect(d1?.click?.clickId).toBe(click.clickId);
    expect(d2?.kind).toBe('install');
    // Was: the second install attributed by fingerprint to the very same click.
    expect({ method: d2?.method, click: d2?.click?.clickId ?? null }).toEqual({ method: 'organic', click: null });
    expect(d2?.candidates).toEqual([
      {
        method: 'fingerprint',
        click_id: click.clickId,
        campaign_id: a.id,
        outcome: 'ineligible',
        reason: 'click already attributed',
      },
    ]);
  });

  /** One same-model click on an IP, then two installs on it a minute apart (two phones, own ad ids). */
  async function oneClickTwoInstalls() {
    const { p, a } = await project();
    const ip = randomIp();
    const t = baseInstant();
    const click = await clickAt(h(), p, a.displayId, { ms: t - HOUR, ip, ua: SAMSUNG_UA });
    await flushFacts(h());
    const phone = () => ({ ...SAMSUNG_DEVICE, gaid: randomUUID() });
    const first = await initAt(h(), p, { ms: t, ip, deviceData: phone() });
    const second = await initAt(h(), p, { ms: t + 60_000, ip, deviceData: phone() });
    const job = (installInstanceId: string) => ({ projectId: p.project.id, installInstanceId });
    const held = async () =>
      h().deps.sql<{ install_instance_id: string; attribution_method: string }[]>`
        SELECT install_instance_id, attribution_method FROM installs
        WHERE project_id = ${p.project.id} AND click_id = ${click.clickId}`;
    return { click, first, second, job, held };
  }

  it('when both installs of one click are decided in one batch, then the earlier takes the click and the later is organic', async () => {
    const { click, first, second, job, held } = await oneClickTwoInstalls();

    // The later install first in the batch: the order of the jobs does not decide.
    const [d2, d1] = await attributeInstalls(h().deps, [job(second), job(first)]);

    expect(d1).toMatchObject({ status: 'fulfilled', value: { method: 'fingerprint' } });
    expect(d2).toMatchObject({ status: 'fulfilled', value: { method: 'organic' } });
    expect(d2?.status === 'fulfilled' && d2.value?.candidates).toEqual([
      expect.objectContaining({ click_id: click.clickId, outcome: 'ineligible', reason: 'click already attributed' }),
    ]);
    expect(await held()).toEqual([{ install_instance_id: first, attribution_method: 'fingerprint' }]);
  });

  it('when two workers (their own Postgres pools) decide the two installs at once, then one install takes the click', async () => {
    const { first, second, job, held } = await oneClickTwoInstalls();
    const other = createPool(await processDatabaseUrl(), 4);
    // Both runs gather before either saves: the saves wait on the two install rows held here.
    const holder = await h().deps.sql.reserve();
    try {
      await holder`BEGIN`;
      await holder`SELECT 1 FROM installs WHERE install_instance_id IN (${first}, ${second}) FOR UPDATE`;
      const runs = Promise.all([
        attributeInstalls(h().deps, [job(first)]),
        attributeInstalls({ ...h().deps, sql: other }, [job(second)]),
      ]);
      await waitForLockWaiters(2);
      await holder`COMMIT`;
      const [[o1], [o2]] = await runs;

      const methods = [o1, o2].map((o) => (o?.status === 'fulfilled' ? o.value?.method : o?.reason));
      expect(methods.sort()).toEqual(['fingerprint', 'organic']);
      expect(await held()).toHaveLength(1);
    } finally {
      holder.release();
      await other.end();
    }
  });

  /** Polls until `n` backends of this database wait on a lock (row or advisory). */
  async function waitForLockWaiters(n: number) {
    for (let tries = 0; tries < 500; tries++) {
      const [r] = await h().deps.sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'`;
      if ((r?.n ?? 0) >= n) {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`fewer than ${n} backends came to wait on a lock`);
  }

  it('when two same-model clicks of two campaigns precede one install, then the later click wins and the earlier is noted lost', async () => {
    const { p, a, b } = await project();
    const ip = randomIp();
    const t = baseInstant();
    const early = await clickAt(h(), p, a.displayId, { ms: t - 3 * HOUR, ip, ua: SAMSUNG_UA });
    const late = await clickAt(h(), p, b.displayId, { ms: t - HOUR, ip, ua: SAMSUNG_UA });
    await flushFacts(h());
    const iid = await initAt(h(), p, { ms: t, ip, deviceData: SAMSUNG_DEVICE });

    const d = await decide(h(), p, iid);

    expect(d?.click?.clickId).toBe(late.clickId);
    expect(d?.candidates).toEqual([
      {
        method: 'fingerprint',
        click_id: late.clickId,
        campaign_id: b.id,
        outcome: 'won',
        reason: 'last eligible click',
      },
      {
        method: 'fingerprint',
        click_id: early.clickId,
        campaign_id: a.id,
        outcome: 'lost',
        reason: 'a later click won',
      },
    ]);
  });
});

describe('fingerprint and lookback windows at their edges (projects set-attribution)', () => {
  it.each([
    ['exactly at the 6 h edge', 'fingerprint', 6 * HOUR],
    ['1 ms past the 6 h edge', 'organic', 6 * HOUR + 1],
  ])('when the fingerprint window is 6 h and the click came %s, then the install is %s', async (_c, method, ago) => {
    const { p, a } = await project();
    await setAttribution(p.project.id, '--fingerprint-window-hours', '6');
    const ip = randomIp();
    const t = baseInstant();
    await clickAt(h(), p, a.displayId, { ms: t - ago, ip, ua: SAMSUNG_UA });
    await flushFacts(h());
    const iid = await initAt(h(), p, { ms: t, ip, deviceData: SAMSUNG_DEVICE });

    expect((await decide(h(), p, iid))?.method).toBe(method);
  });

  it('when the fingerprint window is 0, then a matching IP click is not used and the decision records the window', async () => {
    const { p, a } = await project();
    const s = await setAttribution(p.project.id, '--fingerprint-window-hours', '0');
    expect(s).toMatchObject({ fingerprint_window_hours: 0 });
    const ip = randomIp();
    const t = baseInstant();
    await clickAt(h(), p, a.displayId, { ms: t - HOUR, ip, ua: SAMSUNG_UA });
    await flushFacts(h());
    const iid = await initAt(h(), p, { ms: t, ip, deviceData: SAMSUNG_DEVICE });

    const d = await decide(h(), p, iid);

    expect(d?.method).toBe('organic');
    expect(d?.windows.fingerprint_window_ms).toBe(0);
  });

  it.each([
    ['still in the outbox', false],
    ['in ClickHouse', true],
  ])(
    "when a network's ad-id click (%s) came exactly 168 h before the install (default lookback), then it wins with that CTIT; 1 ms earlier it does not",
    async (_w, flush) => {
      const { p } = await project();
      const tiktok = await campaignWithListings(h().deps, p, { name: 'TikTok', adNetwork: 'TIKTOK' });
      const t = baseInstant();
      const onEdge = randomUUID();
      const past = randomUUID();
      const click = (ms: number, gaid: string, ttclid: string) =>
        clickAt(h(), p, tiktok.displayId, {
          ms,
          ip: randomIp(),
          ua: SAMSUNG_UA,
          query: `gaid=${gaid}&ttclid=${ttclid}`,
        });
      await click(t - 168 * HOUR, onEdge, 'a');
      await click(t - 168 * HOUR - 1, past, 'b');
      if (flush) {
        await flushFacts(h());
      }
      const i1 = await initAt(h(), p, { ms: t, ip: randomIp(), deviceData: { ...SAMSUNG_DEVICE, gaid: onEdge } });
      const i2 = await initAt(h(), p, { ms: t, ip: randomIp(), deviceData: { ...SAMSUNG_DEVICE, gaid: past } });

      const d1 = await decide(h(), p, i1);
      const d2 = await decide(h(), p, i2);

      expect({ method: d1?.method, campaignId: d1?.campaignId, network: d1?.network, ctit: d1?.ctitMs }).toEqual({
        method: 'ad_id',
        campaignId: tiktok.id,
        network: 'TIKTOK',
        ctit: 168 * HOUR,
      });
      expect(d2?.method).toBe('organic');
    },
  );

  it.each([
    ['in ClickHouse', true],
    ['still in the outbox', false],
  ])(
    'when the ad-id click (%s) is 1 h old and the lookback is set to 1 h, then it matches; 1 ms more does not',
    async (_c, flush) => {
      const { p, a } = await project();
      await setAttribution(p.project.id, '--click-lookback-hours', '1');
      const gaid = randomUUID();
      const gaid2 = randomUUID();
      const t = baseInstant();
      await clickAt(h(), p, a.displayId, { ms: t - HOUR, ip: randomIp(), ua: SAMSUNG_UA, query: `gaid=${gaid}` });
      await clickAt(h(), p, a.displayId, { ms: t - HOUR - 1, ip: randomIp(), ua: SAMSUNG_UA, query: `gaid=${gaid2}` });
      if (flush) {
        await flushFacts(h());
      }
      const i1 = await initAt(h(), p, { ms: t, ip: randomIp(), deviceData: { gaid } });
      const i2 = await initAt(h(), p, { ms: t, ip: randomIp(), deviceData: { gaid: gaid2 } });

      expect([(await decide(h(), p, i1))?.method, (await decide(h(), p, i2))?.method]).toEqual(['ad_id', 'organic']);
    },
  );
});

describe('fingerprint: busy IPs and address forms', () => {
  it('when 199 clicks of other devices reach the IP after the install, then the install matches its own click (control)', async () => {
    const { p, a, b } = await project();
    const ip = randomIp();
    const t = baseInstant();
    const mine = await clickAt(h(), p, a.displayId, { ms: t - HOUR, ip, ua: SAMSUNG_UA });
    const iid = await initAt(h(), p, { ms: t, ip, deviceData: SAMSUNG_DEVICE });
    for (let k = 1; k <= 199; k++) {
      await clickAt(h(), p, b.displayId, { ms: t + k * 5000, ip, ua: IOS17_SAFARI_UA });
    }
    await flushFacts(h());

    expect((await decide(h(), p, iid))?.click?.clickId).toBe(mine.clickId);
  }, 60_000);

  it.each([
    ['in ClickHouse', true],
    ['still in the outbox', false],
  ])(
    'when 200 clicks of other devices reach the IP after the install (%s), then the install still matches its own earlier click',
    async (_c, flush) => {
      const { p, a, b } = await project();
      const ip = randomIp();
      const t = baseInstant();
      const mine = await clickAt(h(), p, a.displayId, { ms: t - HOUR, ip, ua: SAMSUNG_UA });
      const iid = await initAt(h(), p, { ms: t, ip, deviceData: SAMSUNG_DEVICE });
      // A carrier NAT: other phones (iPhones) click from the same address in the hour after the install,
      // before the install is decided (a worker backlog, a network resolver retrying).
      for (let k = 1; k <= 200; k++) {
        await clickAt(h(), p, b.displayId, { ms: t + k * 5000, ip, ua: IOS17_SAFARI_UA });
      }
      if (flush) {
        await flushFacts(h());
      }

      const d = await decide(h(), p, iid);

      // Was: organic: the newest 200 clicks of the IP are all after the install (noted
      // "click after install") and the install's own click is never read.
      expect(d?.click?.clickId).toBe(mine.clickId);
      expect(d).toMatchObject({ method: 'fingerprint', campaignId: a.id });
    },
    60_000,
  );

  it('when the click and the install come from the same IPv6 address, then the install is matched by fingerprint', async () => {
    const { p, a } = await project();
    const ip = `2001:db8:${Math.floor(Math.random() * 65535).toString(16)}::7`;
    const t = baseInstant();
    const click = await clickAt(h(), p, a.displayId, { ms: t - HOUR, ip, ua: SAMSUNG_UA });
    await flushFacts(h());
    const iid = await initAt(h(), p, { ms: t, ip, deviceData: SAMSUNG_DEVICE });

    const d = await decide(h(), p, iid);

    expect(d?.click?.clickId).toBe(click.clickId);
  });
});
