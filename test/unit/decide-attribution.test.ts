// The attribution engine on a table of scenarios (pure: hand-built clicks, signals and candidates).
// Methods in order of trust: Play referrer > campaign link > network claim > advertising id >
// fingerprint (same IP + OS, version, model) > organic. Window edges are inclusive (exactly 7 d or
// 24 h before the install is eligible, 1 ms more is not); CTIT under 10 s and a Play install begun
// before its click are flagged suspicious but still attributed (industry defaults, settings.ts).
import { describe, expect, it } from 'vitest';
import { decideAttribution } from '../../src/domain/attribution/decide-attribution.ts';
import { attributionSettings } from '../../src/domain/attribution/settings.ts';
import { cands, claim, click, DAY, HOUR, NONE, SECOND, signals, T0 } from '../support/attribution-inputs.ts';

const DEFAULTS = attributionSettings({});
const DEFAULT_WINDOWS = { click_lookback_ms: 7 * DAY, fingerprint_window_ms: DAY, reattribution_window_ms: 90 * DAY };

const referrerClick = click({ clickId: 'ref-click', campaignId: 11, displayId: 'camp-ref', ts: T0 - 2 * HOUR });
const adIdClick = click({ clickId: 'ad-click', campaignId: 22, displayId: 'camp-ad', ts: T0 - 3 * HOUR });
const ipClick = click({ clickId: 'ip-click', campaignId: 33, displayId: 'camp-ip', ts: T0 - 4 * HOUR });
const link = { campaignId: 44, displayId: 'camp-link', network: 'TIKTOK' };
const play = { clickId: 'ref-click', installBeginTs: null };

describe('decideAttribution: each method wins in isolation', () => {
  it('when the Play referrer carries our click id, then play_referrer wins with that click', () => {
    const d = decideAttribution(signals({ playReferrer: play }), cands({ referrerClick: referrerClick }), DEFAULTS);

    expect(d).toEqual({
      kind: 'install',
      method: 'play_referrer',
      attributionType: 'INORGANIC',
      touchType: 'click',
      campaignId: 11,
      displayId: 'camp-ref',
      network: 'META',
      adSetId: 'as-1',
      adSetName: 'Set 1',
      creativeId: 'cr-1',
      creativeName: 'Creative 1',
      keywordId: '',
      keywordName: '',
      click: referrerClick,
      clickTs: T0 - 2 * HOUR,
      networkDetails: {},
      ctitMs: 2 * HOUR,
      confidence: 1,
      suspicious: false,
      suspiciousReason: '',
      candidates: [
        {
          method: 'play_referrer',
          click_id: 'ref-click',
          campaign_id: 11,
          outcome: 'won',
          reason: 'last eligible click',
        },
      ],
      windows: DEFAULT_WINDOWS,
    });
  });

  it('when the app opened a campaign link, then link wins with no click', () => {
    const d = decideAttribution(signals({ linkCampaign: link }), NONE, DEFAULTS);

    expect(d).toMatchObject({
      kind: 'install',
      method: 'link',
      attributionType: 'INORGANIC',
      touchType: 'click',
      campaignId: 44,
      displayId: 'camp-link',
      network: 'TIKTOK',
      adSetId: '',
      click: null,
      ctitMs: -1,
      confidence: 1,
      suspicious: false,
    });
    expect(d.candidates).toEqual([
      { method: 'link', click_id: '', campaign_id: 44, outcome: 'won', reason: 'campaign link opened by the app' },
    ]);
  });

  it.each([
    ['meta_referrer', claim()],
    [
      'apple_search_ads',
      claim({
        method: 'apple_search_ads',
        network: 'APPLE_SEARCH_ADS',
        touchType: 'click',
        keywordId: 'kw',
        keywordName: 'shoes',
      }),
    ],
  ] as const)('when the network claims the install (%s), then the claim wins with its ad details', (method, c) => {
    const d = decideAttribution(signals({ networkClaim: c }), NONE, DEFAULTS);

    expect(d).toMatchObject({
      method,
      attributionType: 'INORGANIC',
      touchType: c.touchType,
      campaignId: 3,
      displayId: 'camp-net',
      network: c.network,
      adSetId: 'meta-as',
      adSetName: 'Meta set',
      creativeId: 'meta-cr',
      creativeName: 'Meta creative',
      keywordId: c.keywordId,
      keywordName: c.keywordName,
      click: null,
      ctitMs: c.touchType === 'click' ? HOUR : -1, // a view is no click: no click-to-install time
      confidence: 1,
    });
    expect(d.candidates).toEqual([
      { method, click_id: '', campaign_id: 3, outcome: 'won', reason: `claimed by ${c.network}` },
    ]);
  });

  it.each([
    ['a click with its time', { touchType: 'click', ts: T0 - HOUR }, T0 - HOUR, HOUR],
    ['a view with its time', { touchType: 'view', ts: T0 - HOUR }, undefined, -1],
    ['a click without a time', { touchType: 'click', ts: null }, undefined, -1],
    ['a click timed after the install', { touchType: 'click', ts: T0 + 1 }, undefined, -1],
  ] as const)(
    "when the winning claim is %s, then the store click time and CTIT are the network's own click time",
    (_n, over, clickTs, ctitMs) => {
      const d = decideAttribution(signals({ networkClaim: claim(over) }), NONE, DEFAULTS);

      expect({ clickTs: d.clickTs, ctitMs: d.ctitMs }).toEqual({ clickTs, ctitMs });
    },
  );

  it('when a click carried the device advertising id, then ad_id wins deterministically', () => {
    const d = decideAttribution(signals(), cands({ adIdClicks: [adIdClick] }), DEFAULTS);

    expect(d).toMatchObject({ method: 'ad_id', campaignId: 22, displayId: 'camp-ad', click: adIdClick, confidence: 1 });
    expect(d.ctitMs).toBe(3 * HOUR);
  });

  it('when a click came from the same IP with the same OS, version and model, then fingerprint wins at 0.9', () => {
    const d = decideAttribution(signals(), cands({ ipClicks: [ipClick] }), DEFAULTS);

    expect(d).toMatchObject({ method: 'fingerprint', campaignId: 33, click: ipClick, confidence: 0.9 });
    expect(d.candidates).toEqual([
      { method: 'fingerprint', click_id: 'ip-click', campaign_id: 33, outcome: 'won', reason: 'last eligible click' },
    ]);
  });

  it('when nothing matches, then the install is organic with empty campaign fields', () => {
    const d = decideAttribution(signals(), NONE, DEFAULTS);

    expect(d).toEqual({
      kind: 'install',
      method: 'organic',
      attributionType: 'ORGANIC',
      touchType: '',
      campaignId: 0,
      displayId: '',
      network: '',
      adSetId: '',
      adSetName: '',
      creativeId: '',
      creativeName: '',
      keywordId: '',
      keywordName: '',
      click: null,
      networkDetails: {},
      ctitMs: -1,
      confidence: 1,
      suspicious: false,
      suspiciousReason: '',
      candidates: [],
      windows: DEFAULT_WINDOWS,
    });
  });
});

describe('decideAttribution: network details (webhooks google/meta_campaign_details)', () => {
  it('when the winning click carried a gclid and utm_source, then they are the details (absent keys left out)', () => {
    const c = click({ clickId: 'g-click', network: 'GOOGLE', gclid: 'Cj0-g', utmSource: 'google' });

    const d = decideAttribution(
      signals({ playReferrer: { ...play, clickId: 'g-click' } }),
      cands({ referrerClick: c }),
      DEFAULTS,
    );

    expect(d.networkDetails).toEqual({ gclid: 'Cj0-g', ga_source: 'google' });
  });

  it("when Meta's claim wins, then its referrer details are the details", () => {
    const details = { campaign_group_id: 'cg-1', is_instagram: true };

    const d = decideAttribution(signals({ networkClaim: claim({ details }) }), NONE, DEFAULTS);

    expect(d).toMatchObject({ method: 'meta_referrer', networkDetails: details });
  });
});

describe('decideAttribution: priority', () => {
  const all = {
    signals: signals({ playReferrer: play, linkCampaign: link, networkClaim: claim() }),
    candidates: cands({ referrerClick, adIdClicks: [adIdClick], ipClicks: [ipClick] }),
  };

  it.each([
    ['every signal is present', {}, 'play_referrer', 11],
    ['the referrer is gone', { playReferrer: null }, 'link', 44],
    ['referrer and link are gone', { playReferrer: null, linkCampaign: null }, 'meta_referrer', 3],
    ['only clicks remain', { playReferrer: null, linkCampaign: null, networkClaim: null }, 'ad_id', 22],
  ] as const)('when %s, then %s wins', (_case, drop, method, campaignId) => {
    const d = decideAttribution({ ...all.signals, ...drop }, all.candidates, DEFAULTS);

    expect(d.method).toBe(method);
    expect(d.campaignId).toBe(campaignId);
  });

  it('when a more trusted method wins, then the less trusted candidates are noted as lost to it or ineligible', () => {
    const late = click({ clickId: 'late', campaignId: 55, ts: T0 + 1 });

    const d = decideAttribution(
      all.signals,
      cands({ referrerClick, adIdClicks: [late, adIdClick, referrerClick], ipClicks: [ipClick] }),
      DEFAULTS,
    );

    const lost = 'a more trusted method won (play_referrer)';
    expect(d.click).toBe(referrerClick);
    expect(d.candidates).toEqual([
      {
        method: 'play_referrer',
        click_id: 'ref-click',
        campaign_id: 11,
        outcome: 'won',
        reason: 'last eligible click',
      },
      { method: 'link', click_id: '', campaign_id: 44, outcome: 'lost', reason: lost },
      { method: 'meta_referrer', click_id: '', campaign_id: 3, outcome: 'lost', reason: lost },
      { method: 'ad_id', click_id: 'late', campaign_id: 55, outcome: 'ineligible', reason: 'click after install' },
      { method: 'ad_id', click_id: 'ad-click', campaign_id: 22, outcome: 'lost', reason: lost },
      { method: 'fingerprint', click_id: 'ip-click', campaign_id: 33, outcome: 'lost', reason: lost },
    ]);
  });

  it('when only an IP click remains besides organic, then fingerprint wins over organic', () => {
    const d = decideAttribution(signals(), cands({ ipClicks: [ipClick] }), DEFAULTS);

    expect(d.method).toBe('fingerprint');
  });

  it('when the referrer names a click this project never recorded, then it is noted and ad_id decides', () => {
    const d = decideAttribution(signals({ playReferrer: play }), cands({ adIdClicks: [adIdClick] }), DEFAULTS);

    expect(d.method).toBe('ad_id');
    expect(d.candidates).toEqual([
      {
        method: 'play_referrer',
        click_id: 'ref-click',
        campaign_id: 0,
        outcome: 'ineligible',
        reason: 'click not found in this project',
      },
      { method: 'ad_id', click_id: 'ad-click', campaign_id: 22, outcome: 'won', reason: 'last eligible click' },
    ]);
  });
});

describe('decideAttribution: last eligible click', () => {
  it('when several ad-id clicks are eligible, then the last one wins and the others are noted as lost', () => {
    const early = click({ clickId: 'early', campaignId: 1, ts: T0 - 3 * HOUR });
    const last = click({ clickId: 'last', campaignId: 2, ts: T0 - HOUR });
    const middle = click({ clickId: 'middle', campaignId: 3, ts: T0 - 2 * HOUR });

    const d = decideAttribution(signals(), cands({ adIdClicks: [early, last, middle] }), DEFAULTS);

    expect(d.click).toBe(last);
    expect(d.campaignId).toBe(2);
    expect(d.candidates).toEqual([
      { method: 'ad_id', click_id: 'early', campaign_id: 1, outcome: 'lost', reason: 'a later click won' },
      { method: 'ad_id', click_id: 'last', campaign_id: 2, outcome: 'won', reason: 'last eligible click' },
      { method: 'ad_id', click_id: 'middle', campaign_id: 3, outcome: 'lost', reason: 'a later click won' },
    ]);
  });

  it('when a later click came after the install, then it is ineligible and the last earlier click wins', () => {
    const before = click({ clickId: 'before', ts: T0 - HOUR });
    const after = click({ clickId: 'after', ts: T0 + 1 });

    const d = decideAttribution(signals(), cands({ adIdClicks: [after, before] }), DEFAULTS);

    expect(d.click).toBe(before);
    expect(d.candidates).toEqual([
      { method: 'ad_id', click_id: 'after', campaign_id: 1, outcome: 'ineligible', reason: 'click after install' },
      { method: 'ad_id', click_id: 'before', campaign_id: 1, outcome: 'won', reason: 'last eligible click' },
    ]);
  });

  it('when two clicks share a timestamp, then the choice is deterministic whatever their order', () => {
    const a = click({ clickId: 'aaa', ts: T0 - HOUR });
    const b = click({ clickId: 'bbb', ts: T0 - HOUR });

    const d1 = decideAttribution(signals(), cands({ adIdClicks: [a, b] }), DEFAULTS);
    const d2 = decideAttribution(signals(), cands({ adIdClicks: [b, a] }), DEFAULTS);

    expect(d1.click?.clickId).toBe('bbb');
    expect(d2.click?.clickId).toBe('bbb');
  });
});

describe('decideAttribution: window edges', () => {
  it.each([
    ['exactly 7 d before the install', T0 - 7 * DAY, 'ad_id'],
    ['7 d + 1 ms before the install', T0 - 7 * DAY - 1, 'organic'],
    ['at the install instant', T0, 'ad_id'],
    ['1 ms after the install', T0 + 1, 'organic'],
  ] as const)('when the ad-id click was %s, then the install is %s', (_case, ts, method) => {
    const d = decideAttribution(signals(), cands({ adIdClicks: [click({ ts })] }), DEFAULTS);

    expect(d.method).toBe(method);
  });

  it('when the ad-id click is outside the lookback, then it is noted as outside window', () => {
    const d = decideAttribution(signals(), cands({ adIdClicks: [click({ ts: T0 - 7 * DAY - 1 })] }), DEFAULTS);

    expect(d.candidates).toEqual([
      { method: 'ad_id', click_id: 'click-1', campaign_id: 1, outcome: 'ineligible', reason: 'outside window' },
    ]);
  });

  it.each([
    ['exactly 7 d before', T0 - 7 * DAY, 'play_referrer'],
    ['7 d + 1 ms before', T0 - 7 * DAY - 1, 'organic'],
  ] as const)('when the referrer click was %s the install, then the install is %s', (_case, ts, method) => {
    const d = decideAttribution(
      signals({ playReferrer: play }),
      cands({ referrerClick: click({ clickId: 'ref-click', ts }) }),
      DEFAULTS,
    );

    expect(d.method).toBe(method);
  });

  it.each([
    ['exactly 24 h before the install', T0 - DAY, 'fingerprint'],
    ['24 h + 1 ms before the install', T0 - DAY - 1, 'organic'],
    ['1 ms after the install', T0 + 1, 'organic'],
  ] as const)('when the IP click was %s, then the install is %s', (_case, ts, method) => {
    const d = decideAttribution(signals(), cands({ ipClicks: [click({ ts })] }), DEFAULTS);

    expect(d.method).toBe(method);
  });

  it('when the project shortens its windows, then the edges move and the windows are recorded', () => {
    const cfg = attributionSettings({ click_lookback_hours: 48, fingerprint_window_hours: 6 });
    const inside = click({ clickId: 'inside', ts: T0 - 6 * HOUR });
    const outside = click({ clickId: 'outside', ts: T0 - 6 * HOUR - 1 });

    const fp = decideAttribution(signals(), cands({ ipClicks: [outside, inside] }), cfg);
    const adId = decideAttribution(signals(), cands({ adIdClicks: [click({ ts: T0 - 48 * HOUR - 1 })] }), cfg);

    expect(fp.click).toBe(inside);
    expect(adId.method).toBe('organic');
    expect(fp.windows).toEqual({
      click_lookback_ms: 48 * HOUR,
      fingerprint_window_ms: 6 * HOUR,
      reattribution_window_ms: 90 * DAY,
    });
  });

  it('when the lookback is shorter than the fingerprint window, then the lookback bounds fingerprinting too', () => {
    const cfg = attributionSettings({ click_lookback_hours: 2, fingerprint_window_hours: 24 });

    const d = decideAttribution(signals(), cands({ ipClicks: [click({ ts: T0 - 2 * HOUR - 1 })] }), cfg);

    expect(d.method).toBe('organic');
  });
});

describe('decideAttribution: shared IPs (CGNAT)', () => {
  it.each([
    ['a different model', { deviceModel: 'Pixel 8' }, 'device differs: model Pixel 8 vs samsung SM-S911B'],
    ['a different OS version', { osVersion: '13' }, 'device differs: os version 13 vs 14'],
    ['a different OS', { os: 'iOS', osVersion: '17.4', deviceModel: 'iPhone' }, 'device differs: os iOS vs Android'],
    ['a different IP', { ip: '100.64.0.8' }, 'different ip'],
  ])(
    'when the only click from the IP came from %s, then the install stays organic and the click is noted',
    (_case, over, reason) => {
      const other = click({ clickId: 'other-device', campaignId: 9, ...over });

      const d = decideAttribution(signals(), cands({ ipClicks: [other] }), DEFAULTS);

      expect(d.method).toBe('organic');
      expect(d.attributionType).toBe('ORGANIC');
      expect(d.campaignId).toBe(0);
      expect(d.candidates).toEqual([
        { method: 'fingerprint', click_id: 'other-device', campaign_id: 9, outcome: 'ineligible', reason },
      ]);
    },
  );

  it('when a later click from another device shares the IP, then the matching device click still wins', () => {
    const mine = click({ clickId: 'mine', ts: T0 - 2 * HOUR });
    const neighbour = click({ clickId: 'neighbour', ts: T0 - HOUR, deviceModel: 'Pixel 8' });

    const d = decideAttribution(signals(), cands({ ipClicks: [neighbour, mine] }), DEFAULTS);

    expect(d.click).toBe(mine);
    expect(d.candidates.map((n) => [n.click_id, n.outcome])).toEqual([
      ['neighbour', 'ineligible'],
      ['mine', 'won'],
    ]);
  });

  it('when Chrome sent a reduced UA ("Android 10; K"), then the IP click matches with partial confidence', () => {
    const reduced = click({ osVersion: '10', deviceModel: 'K' });

    const d = decideAttribution(signals(), cands({ ipClicks: [reduced] }), DEFAULTS);

    expect(d.method).toBe('fingerprint');
    expect(d.confidence).toBe(0.6);
  });
});

describe('decideAttribution: reinstall', () => {
  it.each([
    ['organic', NONE, 'organic'],
    ['attributed by ad id', cands({ adIdClicks: [adIdClick] }), 'ad_id'],
  ] as const)('when a device seen before installs again (%s), then the kind is reinstall', (_case, c, method) => {
    const d = decideAttribution(signals({ seenBefore: true }), c, DEFAULTS);

    expect(d.kind).toBe('reinstall');
    expect(d.method).toBe(method);
  });
});

describe('decideAttribution: suspicious installs', () => {
  it.each([
    ['9.999 s', 9_999, true],
    ['exactly 10 s', 10_000, false],
    ['an hour', HOUR, false],
  ])('when the click-to-install time is %s, then suspicious is %s', (_case, ctit, suspicious) => {
    const d = decideAttribution(signals(), cands({ adIdClicks: [click({ ts: T0 - ctit })] }), DEFAULTS);

    expect(d.method).toBe('ad_id');
    expect(d.ctitMs).toBe(ctit);
    expect(d.suspicious).toBe(suspicious);
    expect(d.suspiciousReason).toBe(suspicious ? 'click-to-install time under 10 s' : '');
  });

  it.each([
    ['1 ms before the click', referrerClick.ts - 1, true],
    ['at the click', referrerClick.ts, false],
    ['after the click', referrerClick.ts + 1, false],
  ])('when the Play install began %s, then click injection is flagged: %s', (_case, installBeginTs, suspicious) => {
    const d = decideAttribution(
      signals({ playReferrer: { clickId: 'ref-click', installBeginTs } }),
      cands({ referrerClick }),
      DEFAULTS,
    );

    expect(d.method).toBe('play_referrer');
    expect(d.suspicious).toBe(suspicious);
    expect(d.suspiciousReason).toBe(suspicious ? 'install began before the click (click injection)' : '');
  });

  it.each([
    ['ad_id', cands({ adIdClicks: [adIdClick] }), adIdClick],
    ['fingerprint', cands({ ipClicks: [ipClick] }), ipClick],
  ] as const)(
    'when a %s click came after the Play download began, then it is flagged as click injection',
    (method, c, won) => {
      // An organic Play referrer (no click id of ours) still reports when the download began.
      const s = signals({ playReferrer: { clickId: null, installBeginTs: won.ts - SECOND } });

      const d = decideAttribution(s, c, DEFAULTS);

      expect(d.method).toBe(method);
      expect(d.suspicious).toBe(true);
      expect(d.suspiciousReason).toBe('install began before the click (click injection)');
    },
  );

  it('when the project sets the CTIT threshold to 0, then a 1 s install is not suspicious', () => {
    const cfg = attributionSettings({ suspicious_ctit_seconds: 0 });

    const d = decideAttribution(signals(), cands({ adIdClicks: [click({ ts: T0 - SECOND })] }), cfg);

    expect(d.suspicious).toBe(false);
  });

  it('when the install is organic or by link, then nothing is flagged (no click to time)', () => {
    expect(decideAttribution(signals(), NONE, DEFAULTS).suspicious).toBe(false);
    expect(decideAttribution(signals({ linkCampaign: link }), NONE, DEFAULTS).suspicious).toBe(false);
  });
});

describe('decideAttribution: methods turned off in settings', () => {
  it.each([
    [{ fingerprint: false }, cands({ ipClicks: [ipClick] }), signals(), 'organic'],
    [{ ad_id: false }, cands({ adIdClicks: [adIdClick], ipClicks: [ipClick] }), signals(), 'fingerprint'],
    [
      { play_referrer: false },
      cands({ referrerClick, adIdClicks: [adIdClick] }),
      signals({ playReferrer: play }),
      'ad_id',
    ],
    [{ link: false }, cands({ adIdClicks: [adIdClick] }), signals({ linkCampaign: link }), 'ad_id'],
    [{ network_resolvers: false }, NONE, signals({ networkClaim: claim() }), 'organic'],
  ] as const)('when methods %j are off, then %#: the next method decides', (methods, c, s, method) => {
    const d = decideAttribution(s, c, attributionSettings({ methods }));

    expect(d.method).toBe(method);
  });

  it('when fingerprinting is off, then IP clicks are not even noted', () => {
    const d = decideAttribution(
      signals(),
      cands({ ipClicks: [ipClick] }),
      attributionSettings({ methods: { fingerprint: false } }),
    );

    expect(d.candidates).toEqual([]);
  });

  it('when the fingerprint window is 0 h, then fingerprinting is off', () => {
    const d = decideAttribution(
      signals(),
      cands({ ipClicks: [ipClick] }),
      attributionSettings({ fingerprint_window_hours: 0 }),
    );

    expect(d.method).toBe('organic');
  });
});

describe('attributionSettings', () => {
  it('when nothing is stored, then the industry defaults apply', () => {
    expect(attributionSettings(undefined)).toEqual({
      clickLookbackMs: 7 * DAY,
      fingerprintWindowMs: DAY,
      reattributionWindowMs: 90 * DAY,
      reengagementInactivityMs: 0,
      suspiciousCtitMs: 10 * SECOND,
      methods: { playReferrer: true, link: true, adId: true, fingerprint: true, networkResolvers: true },
    });
  });

  it('when one method is turned off, then the others keep their defaults', () => {
    expect(attributionSettings({ methods: { fingerprint: false } }).methods).toEqual({
      playReferrer: true,
      link: true,
      adId: true,
      fingerprint: false,
      networkResolvers: true,
    });
  });

  it.each([
    ['a negative lookback', { click_lookback_hours: -1 }],
    ['a string window', { fingerprint_window_hours: '24' }],
    ['a non-object', 'fast'],
  ])('when the stored settings hold %s, then the defaults apply', (_case, stored) => {
    expect(attributionSettings(stored)).toEqual(attributionSettings({}));
  });
});
