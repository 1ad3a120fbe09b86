// The Play Install Referrer, method priority and the decision record, through the
// real link handler, init, attribution-data, the attribution job and get-attribution-result.
// README "Attribution": play_referrer > link > network resolvers > ad_id > fingerprint; a CTIT under
// the project's threshold, or a Play install that began before the click, marks it suspicious;
// a device_data.install_ref that init lacked, sent on attribution-data while pending, is used.
import { randomBytes, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  baseInstant,
  cli,
  clickAt,
  decide,
  flushFacts,
  HOUR,
  initAt,
  resultByDevice,
  SAMSUNG_DEVICE,
  SAMSUNG_UA,
} from '../../support/attribution-kit.ts';
import { campaignWithListings, post, randomIp } from '../../support/client.ts';
import { newProject, testEnv, useHarness } from '../../support/harness.ts';
import { META_PLAINTEXT, sealMeta } from '../../support/meta-referrer.ts';

const SECRETS_KEY = randomBytes(32).toString('hex');
const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false', LOOKUP_CACHE_TTL_MS: '0', SECRETS_KEY } });
let cliEnv: Record<string, string | undefined>;
beforeAll(async () => {
  cliEnv = await testEnv({ SECRETS_KEY });
});

async function run(...argv: string[]) {
  const r = await cli(cliEnv, [...argv, '--json']);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out);
}

async function project() {
  const p = await newProject(h().deps);
  const a = await campaignWithListings(h().deps, p, { name: 'A' });
  const b = await campaignWithListings(h().deps, p, { name: 'B' });
  return { p, a, b };
}

describe('Play referrer', () => {
  it("when the Play referrer carries another project's click id, then the install is not attributed to that project's campaign", async () => {
    const other = await project();
    const mine = await project();
    const ip = randomIp();
    const t = baseInstant();
    const click = await clickAt(h(), other.p, other.a.displayId, { ms: t - HOUR, ip, ua: SAMSUNG_UA });
    await flushFacts(h());
    const iid = await initAt(h(), mine.p, {
      ms: t,
      ip: randomIp(),
      deviceData: { ...SAMSUNG_DEVICE, install_ref: click.referrer },
    });

    const d = await decide(h(), mine.p, iid);

    expect(d).toMatchObject({ method: 'organic', campaignId: 0 });
    expect(d?.candidates).toEqual([
      {
        method: 'play_referrer',
        click_id: click.clickId,
        campaign_id: 0,
        outcome: 'ineligible',
        reason: 'click not found in this project',
      },
    ]);
  });

  it.each([
    ['a referrer of only utm values', 'utm_source=google-play&utm_medium=organic'],
    ['a Google Ads referrer (gclid, gbraid)', 'gclid=Cj0KCQjw&gbraid=0AAAAA&utm_source=google&utm_medium=cpc'],
    ['a malformed referrer', '%%%&&==lr_click_id=&lr_click_id=<script>'],
    ['an oversized referrer', `utm_source=x&utm_content=${'y'.repeat(100_00)}`],
    ['an lr_click_id of an unknown click', 'lr_click_id=NoSuchClick123&utm_source=x'],
  ])(
    'when the install carries %s, then init answers 202 and the decision falls to the next method',
    async (_c, ref) => {
      const { p, a } = await project();
      const ip = randomIp();
      const t = baseInstant();
      const click = await clickAt(h(), p, a.displayId, { ms: t - HOUR, ip, ua: SAMSUNG_UA });
      await flushFacts(h());
      const iid = await initAt(h(), p, { ms: t, ip, deviceData: { ...SAMSUNG_DEVICE, install_ref: ref } });

      const d = await decide(h(), p, iid);

      expect(d).toMatchObject({ method: 'fingerprint', campaignId: a.id });
      expect(d?.click?.clickId).toBe(click.clickId);
    },
  );

  it("when the Play referrer's click is 1 ms past the 7-day lookback, then it is noted outside window and the install is organic; on the edge it wins", async () => {
    const { p, a } = await project();
    const t = baseInstant();
    const old = await clickAt(h(), p, a.displayId, { ms: t - 168 * HOUR - 1, ip: randomIp(), ua: SAMSUNG_UA });
    const edge = await clickAt(h(), p, a.displayId, { ms: t - 168 * HOUR, ip: randomIp(), ua: SAMSUNG_UA });
    await flushFacts(h());
    const i1 = await initAt(h(), p, {
      ms: t,
      ip: randomIp(),
      deviceData: { ...SAMSUNG_DEVICE, install_ref: old.referrer },
    });
    const i2 = await initAt(h(), p, {
      ms: t,
      ip: randomIp(),
      deviceData: { ...SAMSUNG_DEVICE, install_ref: edge.referrer },
    });

    const d1 = await decide(h(), p, i1);
    const d2 = await decide(h(), p, i2);

    expect(d1?.method).toBe('organic');
    expect(d1?.candidates).toEqual([
      {
        method: 'play_referrer',
        click_id: old.clickId,
        campaign_id: a.id,
        outcome: 'ineligible',
        reason: 'outside window',
      },
    ]);
    expect({ method: d2?.method, click: d2?.click?.clickId }).toEqual({ method: 'play_referrer', click: edge.clickId });
  });

  it('when the referrer arrives late on attribution-data with an install begin before the click, then the install is flagged as click injection', async () => {
    const { p, a } = await project();
    const t = baseInstant();
    const click = await clickAt(h(), p, a.displayId, { ms: t - HOUR, ip: randomIp(), ua: SAMSUNG_UA });
    await flushFacts(h());
    const iid = await initAt(h(), p, { ms: t, ip: randomIp(), deviceData: SAMSUNG_DEVICE });
    // The Play Install Referrer API answered after init; the app sends it (and its timestamps) here.
    const late = await post(h(), 'attribution-data', {
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: iid,
      device_data: {
        install_ref: click.referrer,
        install_ref_installBeginTimestampSeconds: Math.floor((t - 2 * HOUR) / 1000),
        install_ref_referrerClickTimestampSeconds: Math.floor((t - HOUR) / 1000),
      },
    });
    expect(late.json().data.attribution_source).toBe('PENDING');

    const d = await decide(h(), p, iid);

    expect(d).toMatchObject({ method: 'play_referrer', campaignId: a.id });
    // Was: suspicious false: the late referrer is kept without its install-begin time.
    expect({ suspicious: d?.suspicious, reason: d?.suspiciousReason }).toEqual({
      suspicious: true,
      reason: 'install began before the click (click injection)',
    });
  });

  it('when the same referrer comes on init with an install begin before the click, then the install is flagged (control)', async () => {
    const { p, a } = await project();
    const t = baseInstant();
    const click = await clickAt(h(), p, a.displayId, { ms: t - HOUR, ip: randomIp(), ua: SAMSUNG_UA });
    await flushFacts(h());
    const iid = await initAt(h(), p, {
      ms: t,
      ip: randomIp(),
      deviceData: {
        ...SAMSUNG_DEVICE,
        install_ref: click.referrer,
        install_ref_installBeginTimestampSeconds: Math.floor((t - 2 * HOUR) / 1000),
      },
    });

    const d = await decide(h(), p, iid);

    expect(d).toMatchObject({ method: 'play_referrer', suspicious: true });
  });
});

describe('Meta referrer inside the Play install_ref (spec: install_ref lets the social network be resolved)', () => {
  // Meta's names run to hundreds of characters: with three long ones the referrer passes 2,048
  // (once the cut of install_ref, which broke the sealed hex).
  it.each([
    ['short names', {}],
    [
      'long campaign, ad set and group names',
      { campaign_name: 'c'.repeat(400), adgroup_name: 'a'.repeat(400), campaign_group_name: 'g'.repeat(400) },
    ],
  ])(
    'when the Play install_ref carries Meta encrypted utm_content for a mapped campaign (%s), then the install is meta_referrer',
    async (_c, names) => {
      const p = await newProject(h().deps);
      const appKey = randomBytes(32).toString('hex');
      await run('projects', 'set-meta-referrer-key', '--project', p.project.id, '--key', appKey);
      const c = await campaignWithListings(h().deps, p, { name: 'Meta', adNetwork: 'META' });
      await run(
        'campaigns',
        'set-network-id',
        '--project',
        p.project.id,
        '--display-id',
        c.displayId,
        '--network-campaign-id',
        META_PLAINTEXT.campaign_id,
      );
      const source = sealMeta(JSON.stringify({ ...META_PLAINTEXT, ...names }), appKey);
      // The Play referrer Meta's app-install ads produce (Meta "Install Referrer" docs).
      const installRef = new URLSearchParams({
        utm_campaign: 'fb4a',
        utm_source: 'apps.facebook.com',
        utm_content: JSON.stringify({ app: 1234567890, t: 1_712_000_000, source }),
      }).toString();
      const iid = await initAt(h(), p, {
        ms: baseInstant(),
        ip: randomIp(),
        deviceData: { ...SAMSUNG_DEVICE, install_ref: installRef },
      });

      const d = await decide(h(), p, iid);

      // Was: organic (only device_data.meta_install_ref is read).
      expect(d).toMatchObject({ method: 'meta_referrer', campaignId: c.id, network: 'META' });
    },
  );

  it.each([
    ['a string', 'garbage'],
    ['an array', [1, 2, 3]],
    ['a number', 42],
    ['source not hex', { install_referrer: { utm_content: { source: { data: 'zz', nonce: 'qq' } } } }],
    [
      'a huge ciphertext',
      { install_referrer: { utm_content: { source: { data: 'ab'.repeat(20_000), nonce: 'a'.repeat(24) } } } },
    ],
    ['utm_content not JSON', { install_referrer: 'utm_source=apps.facebook.com&utm_content={{{' }],
  ])('when meta_install_ref is %s, then init answers 202 and the install falls to its click', async (_c, ref) => {
    const p = await newProject(h().deps);
    await run('projects', 'set-meta-referrer-key', '--project', p.project.id, '--key', randomBytes(32).toString('hex'));
    const c = await campaignWithListings(h().deps, p);
    const t = baseInstant();
    const gaid = randomUUID();
    await clickAt(h(), p, c.displayId, { ms: t - HOUR, ip: randomIp(), ua: SAMSUNG_UA, query: `gaid=${gaid}` });
    await flushFacts(h());
    const iid = await initAt(h(), p, { ms: t, ip: randomIp(), deviceData: { gaid, meta_install_ref: ref } });

    expect(await decide(h(), p, iid)).toMatchObject({ method: 'ad_id', campaignId: c.id });
  });
});

describe('method priority and the decision record', () => {
  it('when a referrer click, a campaign link, an ad-id click and an IP click all point to campaigns, then play_referrer wins and every other candidate is lost to it', async () => {
    const { p, a, b } = await project();
    const c = await campaignWithListings(h().deps, p, { name: 'C' });
    const d4 = await campaignWithListings(h().deps, p, { name: 'D' });
    const ip = randomIp();
    const gaid = randomUUID();
    const t = baseInstant();
    const ref = await clickAt(h(), p, a.displayId, { ms: t - 4 * HOUR, ip: randomIp(), ua: SAMSUNG_UA });
    const ad = await clickAt(h(), p, c.displayId, {
      ms: t - 3 * HOUR,
      ip: randomIp(),
      ua: SAMSUNG_UA,
      query: `gaid=${gaid}`,
    });
    const fp = await clickAt(h(), p, d4.displayId, { ms: t - 2 * HOUR, ip, ua: SAMSUNG_UA });
    await flushFacts(h());
    const iid = await initAt(h(), p, {
      ms: t,
      ip,
      link: `https://attr.test/?c=${b.displayId}`,
      deviceData: { ...SAMSUNG_DEVICE, gaid, install_ref: ref.referrer },
    });

    const d = await decide(h(), p, iid);

    expect(d).toMatchObject({ method: 'play_referrer', campaignId: a.id });
    const why = 'a more trusted method won (play_referrer)';
    expect(d?.candidates).toEqual([
      {
        method: 'play_referrer',
        click_id: ref.clickId,
        campaign_id: a.id,
        outcome: 'won',
        reason: 'last eligible click',
      },
      { method: 'link', click_id: '', campaign_id: b.id, outcome: 'lost', reason: why },
      { method: 'ad_id', click_id: ad.clickId, campaign_id: c.id, outcome: 'lost', reason: why },
      { method: 'fingerprint', click_id: fp.clickId, campaign_id: d4.id, outcome: 'lost', reason: why },
    ]);
    const res = await resultByDevice(h(), p, gaid);
    expect(res.json().data).toMatchObject({
      display_id: a.displayId,
      attribution_type: 'INORGANIC',
      match: { method: 'play_referrer', click_id: ref.clickId, suspicious: false, candidates: d?.candidates },
    });
  });

  it('when play_referrer and link are disabled, then the ad-id click wins and the referrer click is not used', async () => {
    const { p, a, b } = await project();
    const s = await run('projects', 'set-attribution', '--project', p.project.id, '--disable', 'play_referrer,link');
    expect(s.methods).toMatchObject({ play_referrer: false, link: false, ad_id: true });
    const gaid = randomUUID();
    const t = baseInstant();
    const ref = await clickAt(h(), p, a.displayId, { ms: t - HOUR, ip: randomIp(), ua: SAMSUNG_UA });
    const ad = await clickAt(h(), p, b.displayId, {
      ms: t - 2 * HOUR,
      ip: randomIp(),
      ua: SAMSUNG_UA,
      query: `gaid=${gaid}`,
    });
    await flushFacts(h());
    const iid = await initAt(h(), p, {
      ms: t,
      ip: randomIp(),
      link: `https://attr.test/${a.displayId}`,
      deviceData: { gaid, install_ref: ref.referrer },
    });

    const d = await decide(h(), p, iid);

    expect(d).toMatchObject({ method: 'ad_id', campaignId: b.id });
    expect(d?.click?.clickId).toBe(ad.clickId);
  });

  it('when the CTIT threshold is 30 s and the ad-id click came 20 s before init, then the install is suspicious everywhere it is reported', async () => {
    const { p, a } = await project();
    await run('projects', 'set-attribution', '--project', p.project.id, '--suspicious-ctit-seconds', '30');
    const gaid = randomUUID();
    const t = Date.now() - 60_000;
    await clickAt(h(), p, a.displayId, { ms: t - 20_000, ip: randomIp(), ua: SAMSUNG_UA, query: `gaid=${gaid}` });
    const iid = await initAt(h(), p, { ms: t, ip: randomIp(), deviceData: { gaid } });

    const d = await decide(h(), p, iid);

    expect(d).toMatchObject({
      method: 'ad_id',
      ctitMs: 20_000,
      suspicious: true,
      suspiciousReason: 'click-to-install time under 30 s',
    });
    expect((await resultByDevice(h(), p, gaid)).json().data.match).toMatchObject({
      suspicious: true,
      suspicious_reason: 'click-to-install time under 30 s',
      ctit_ms: 20_000,
    });
  });

  it('when attribution-data is polled while pending and after the decision, then it answers PENDING (no-store) then the campaign', async () => {
    const { p, a } = await project();
    const gaid = randomUUID();
    const t = baseInstant();
    await clickAt(h(), p, a.displayId, { ms: t - HOUR, ip: randomIp(), ua: SAMSUNG_UA, query: `gaid=${gaid}` });
    const iid = await initAt(h(), p, { ms: t, ip: randomIp(), deviceData: { gaid } });
    const ask = () => post(h(), 'attribution-data', { token: p.token, platform: 'ANDROID', install_instance_id: iid });

    const pending = await ask();
    await decide(h(), p, iid);
    const final = await ask();

    expect(pending.headers['cache-control']).toBe('no-store');
    expect(pending.json().data).toMatchObject({ campaign_data: null, attribution_source: 'PENDING' });
    expect(final.json().data.campaign_data).toMatchObject({
      id: a.displayId,
      type: 'INORGANIC',
      installed_at: new Date(t).toISOString().replace('.000Z', 'Z'),
      store_click_at: new Date(t - HOUR).toISOString().replace('.000Z', 'Z'),
    });
  });
});
