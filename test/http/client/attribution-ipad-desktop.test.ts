// An iPad in its default desktop mode, through the real link handler, init and attribution job.
// README "Link handler": its Mac Safari agent gets the iPad-or-desktop page and is recorded as a
// DESKTOP click with the model `Macintosh or iPad`. README "Attribution", fingerprint row: an iOS
// install whose model is an iPad may take such a click (same IP, fingerprint window, a click no other
// install took) with confidence 0.6; an iPhone never does; a deterministic method still wins; the
// iPad's own exact click (mobile mode) beats a later Mac Safari click from its IP.
import { describe, expect, it } from 'vitest';
import { baseInstant, clickAt, decide, flushFacts, HOUR, initAt } from '../../support/attribution-kit.ts';
import { campaignWithListings, randomIp } from '../../support/client.ts';
import { newProject, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false', LOOKUP_CACHE_TTL_MS: '0' } });

// iPadOS 17 Safari in desktop mode: the agent of a Mac's Safari.
const IPAD_DESKTOP_UA =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15';
const MAC_CHROME_UA =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const IPAD = { device: 'iPad13,1', system_version: '17.4' };
// What the iOS SDK really sends: `device` is UIDevice.model, "iPad" (real-clients.md §5.2).
const IPAD_SDK = { device: 'iPad', device_name: 'iPad', system_version: '26.0.1', brand: 'Apple' };
const IPAD_SAFARI_26 =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.0 Safari/605.1.15';
// Chrome for iOS, Request Desktop Site (the default on an iPad): Chromium blog, M85+.
const IPAD_CHROME_DESKTOP =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_13_5) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/111 Version/11.1.1 Safari/605.1.15';
const IPAD_MOBILE_SAFARI =
  'Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

async function project() {
  const p = await newProject(h().deps);
  const a = await campaignWithListings(h().deps, p, { name: 'A', linkForDesktopUsers: 'https://example.com/desktop' });
  const b = await campaignWithListings(h().deps, p, { name: 'B' });
  return { p, a, b };
}

describe('fingerprint: an iPad in desktop mode', () => {
  it.each([
    ['in ClickHouse', true],
    ['still in the outbox', false],
  ])(
    'when an iPad opens the link in desktop mode and installs from the same IP (click %s), then fingerprint matches it at 0.6',
    async (_w, flush) => {
      const { p, a } = await project();
      const ip = randomIp();
      const t = baseInstant();
      const click = await clickAt(h(), p, a.displayId, { ms: t - HOUR, ip, ua: IPAD_DESKTOP_UA });
      expect(click.res.statusCode).toBe(200);
      expect(click.clickId).not.toBe('');
      if (flush) {
        await flushFacts(h());
      }
      const iid = await initAt(h(), p, { ms: t, ip, platform: 'IOS', deviceData: IPAD });

      const d = await decide(h(), p, iid);

      // Was: organic, candidate ineligible "device differs: os Mac OS vs iOS".
      expect(d).toMatchObject({
        method: 'fingerprint',
        campaignId: a.id,
        attributionType: 'INORGANIC',
        confidence: 0.6,
      });
      expect(d?.click?.clickId).toBe(click.clickId);
      expect(d?.candidates).toEqual([expect.objectContaining({ click_id: click.clickId, outcome: 'won' })]);
      const [row] = await h().deps.sql<{ click_id: string; attribution_method: string }[]>`
        SELECT click_id, attribution_method FROM installs WHERE install_instance_id = ${iid}`;
      expect(row).toEqual({ click_id: click.clickId, attribution_method: 'fingerprint' });
    },
  );

  it('when an iPhone installs from the IP of such a click, then it stays organic', async () => {
    const { p, a } = await project();
    const ip = randomIp();
    const t = baseInstant();
    const click = await clickAt(h(), p, a.displayId, { ms: t - HOUR, ip, ua: IPAD_DESKTOP_UA });
    await flushFacts(h());
    const iid = await initAt(h(), p, {
      ms: t,
      ip,
      platform: 'IOS',
      deviceData: { device: 'iPhone15,2', system_version: '17.4' },
    });

    const d = await decide(h(), p, iid);

    expect(d?.method).toBe('organic');
    expect(d?.candidates).toEqual([
      {
        method: 'fingerprint',
        click_id: click.clickId,
        campaign_id: a.id,
        outcome: 'ineligible',
        reason: 'device differs: os Mac OS vs iOS',
      },
    ]);
  });

  it('when the Mac click came from Chrome (no iPad sends it), then an iPad on the same IP stays organic', async () => {
    const { p, a } = await project();
    const ip = randomIp();
    const t = baseInstant();
    const click = await clickAt(h(), p, a.displayId, { ms: t - HOUR, ip, ua: MAC_CHROME_UA });
    expect(click.res.statusCode).toBe(302);
    await flushFacts(h());
    const iid = await initAt(h(), p, { ms: t, ip, platform: 'IOS', deviceData: IPAD });

    expect((await decide(h(), p, iid))?.method).toBe('organic');
  });

  it('when the iPad install also gives a campaign link on init, then the link decides and the click is noted lost', async () => {
    const { p, a, b } = await project();
    const ip = randomIp();
    const t = baseInstant();
    const click = await clickAt(h(), p, a.displayId, { ms: t - HOUR, ip, ua: IPAD_DESKTOP_UA });
    await flushFacts(h());
    const iid = await initAt(h(), p, {
      ms: t,
      ip,
      platform: 'IOS',
      deviceData: IPAD,
      link: `http://attr.test/?c=${b.displayId}`,
    });

    const d = await decide(h(), p, iid);

    expect(d).toMatchObject({ method: 'link', campaignId: b.id, confidence: 1 });
    expect(d?.candidates).toContainEqual({
      method: 'fingerprint',
      click_id: click.clickId,
      campaign_id: a.id,
      outcome: 'lost',
      reason: 'a more trusted method won (link)',
    });
  });

  it('when two iPads install behind the IP of one such click, then only the first takes it', async () => {
    const { p, a } = await project();
    const ip = randomIp();
    const t = baseInstant();
    const click = await clickAt(h(), p, a.displayId, { ms: t - HOUR, ip, ua: IPAD_DESKTOP_UA });
    await flushFacts(h());
    const first = await initAt(h(), p, { ms: t, ip, platform: 'IOS', deviceData: IPAD });
    const second = await initAt(h(), p, { ms: t + 60_000, ip, platform: 'IOS', deviceData: IPAD });

    const d1 = await decide(h(), p, first);
    const d2 = await decide(h(), p, second);

    expect(d1?.click?.clickId).toBe(click.clickId);
    expect(d2?.method).toBe('organic');
    expect(d2?.candidates).toEqual([
      expect.objectContaining({ outcome: 'ineligible', reason: 'click already attributed' }),
    ]);
  });
});

describe('fingerprint: the agents of an iPad and the SDK’s real device', () => {
  it.each([
    ['Safari 26 on iPadOS 26 (desktop mode)', IPAD_SAFARI_26],
    ['Chrome on the iPad (desktop agent with CriOS/ and Mac OS X 10_13_5)', IPAD_CHROME_DESKTOP],
  ])(
    'when %s opens the link and the SDK installs with device "iPad" from the IP, then fingerprint at 0.6',
    async (_n, ua) => {
      const { p, a } = await project();
      const ip = randomIp();
      const t = baseInstant();
      const click = await clickAt(h(), p, a.displayId, { ms: t - HOUR, ip, ua });
      expect(click.res.statusCode).toBe(200);
      await flushFacts(h());
      const iid = await initAt(h(), p, { ms: t, ip, platform: 'IOS', deviceData: IPAD_SDK });

      const d = await decide(h(), p, iid);

      // Chrome's was: organic, the click recorded as a plain Mac ("device differs: os Mac OS vs iOS").
      expect(d).toMatchObject({ method: 'fingerprint', campaignId: a.id, confidence: 0.6 });
      expect(d?.click?.clickId).toBe(click.clickId);
    },
  );

  it('when the iPad clicks in mobile mode and a Mac on its IP later clicks another campaign in Safari, then the iPad’s own click wins at 0.9', async () => {
    const { p, a, b } = await project();
    const ip = randomIp();
    const t = baseInstant();
    const own = await clickAt(h(), p, a.displayId, { ms: t - 2 * HOUR, ip, ua: IPAD_MOBILE_SAFARI });
    const mac = await clickAt(h(), p, b.displayId, { ms: t - HOUR, ip, ua: IPAD_DESKTOP_UA });
    await flushFacts(h());
    const iid = await initAt(h(), p, { ms: t, ip, platform: 'IOS', deviceData: IPAD });

    const d = await decide(h(), p, iid);

    // Was: the Mac's later click (a partial match, 0.6) took the install for campaign B.
    expect(d).toMatchObject({ method: 'fingerprint', campaignId: a.id, confidence: 0.9 });
    expect(d?.click?.clickId).toBe(own.clickId);
    expect(d?.candidates).toContainEqual({
      method: 'fingerprint',
      click_id: mac.clickId,
      campaign_id: b.id,
      outcome: 'lost',
      reason: 'an exact device match won',
    });
  });
});
