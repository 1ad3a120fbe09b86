// Fingerprint's choice among the IP clicks (README "Attribution", fingerprint row): the last eligible
// exact device match (OS, major version, model) wins; only when there is none does a partial match
// (a reduced Android agent, WebKit's frozen iOS version, a `Macintosh or iPad` click) win, at the
// lower confidence 0.6. A partial match of another device behind the IP no longer beats the
// install's own exact click just by coming later; it is noted lost to it. And an iPad in its
// default desktop mode: its Mac Safari agent is recorded as a DESKTOP click with the model
// `Macintosh or iPad` (links/classify-user-agent.ts), which an iPad install may take at 0.6.
import { describe, expect, it } from 'vitest';
import { decideAttribution } from '../../src/domain/attribution/decide-attribution.ts';
import { decideBatch } from '../../src/domain/attribution/decide-batch.ts';
import { attributionSettings } from '../../src/domain/attribution/settings.ts';
import type { Click, InstallSignals } from '../../src/domain/attribution/types.ts';
import { cands, click, DAY, HOUR, signals, T0 } from '../support/attribution-inputs.ts';

const DEFAULTS = attributionSettings({});

/** A click recorded from a Mac Safari agent (maybe an iPad in desktop mode). */
const macOrIpad = (over: Partial<Click> = {}) =>
  click({
    clickId: 'mac-or-ipad',
    platform: 'DESKTOP',
    os: 'Mac OS',
    osVersion: '10.15.7',
    ...over,
    deviceModel: 'Macintosh or iPad',
  });
const ipad = (over: Partial<InstallSignals> = {}) =>
  signals({ platform: 'IOS', os: 'iOS', osVersion: '17.4', deviceModel: 'iPad13,1', ...over });
/** The same device's click as a reduced Chrome agent ("Android 10; K"): a partial match. */
const reduced = (over: Partial<Click> = {}) =>
  click({ clickId: 'reduced', osVersion: '10', deviceModel: 'K', ...over });

const note = (click_id: string, outcome: string, reason: string) => ({
  method: 'fingerprint',
  click_id,
  campaign_id: expect.any(Number),
  outcome,
  reason,
});

describe('fingerprint: an exact device match before a partial one', () => {
  it('when the install’s own exact click is followed by a reduced-agent click from the IP, then the exact click wins at 0.9 and the later one is noted lost to it', () => {
    const mine = click({ clickId: 'mine', ts: T0 - 3 * HOUR });
    const later = reduced({ campaignId: 2, ts: T0 - HOUR });

    const d = decideAttribution(signals(), cands({ ipClicks: [mine, later] }), DEFAULTS);

    // Was: the later partial match won at 0.6 only by being later.
    expect(d).toMatchObject({ method: 'fingerprint', campaignId: 1, confidence: 0.9 });
    expect(d.click).toBe(mine);
    expect(d.candidates).toEqual([
      note('mine', 'won', 'last eligible click'),
      note('reduced', 'lost', 'an exact device match won'),
    ]);
  });

  it('when the iPad clicked in mobile mode (an exact match) and a Mac on the IP later clicked in Safari, then the iPad’s own click wins at 0.9', () => {
    // Instagram on the iPad (an iPad agent), then a Mac in the same home opens another campaign's
    // link in Safari an hour later.
    const own = click({
      clickId: 'own-ipad',
      ts: T0 - 2 * HOUR,
      platform: 'IOS',
      os: 'iOS',
      osVersion: '17.4',
      deviceModel: 'iPad',
    });
    const mac = macOrIpad({ campaignId: 2, ts: T0 - HOUR });

    const d = decideAttribution(ipad(), cands({ ipClicks: [own, mac] }), DEFAULTS);

    // Was: the Mac's click (a guess, 0.6) won and the install went to campaign 2.
    expect(d).toMatchObject({ campaignId: 1, confidence: 0.9 });
    expect(d.click?.clickId).toBe('own-ipad');
    expect(d.candidates).toEqual([
      note('own-ipad', 'won', 'last eligible click'),
      note('mac-or-ipad', 'lost', 'an exact device match won'),
    ]);
  });

  it('when two exact matches and a later partial one are eligible, then the last exact wins; the other exact lost to a later click', () => {
    const first = click({ clickId: 'first', ts: T0 - 4 * HOUR });
    const second = click({ clickId: 'second', ts: T0 - 3 * HOUR });
    const late = reduced({ ts: T0 - HOUR });

    const d = decideAttribution(signals(), cands({ ipClicks: [late, first, second] }), DEFAULTS);

    expect(d.click).toBe(second);
    expect(d.candidates).toEqual([
      note('reduced', 'lost', 'an exact device match won'),
      note('first', 'lost', 'a later click won'),
      note('second', 'won', 'last eligible click'),
    ]);
  });

  it.each([
    ['already decided another install', { takenClickIds: new Set(['mine']) }, {}, 'click already attributed'],
    ['outside the fingerprint window', {}, { ts: T0 - DAY - 1 }, 'outside window'],
  ])('when the exact match is %s, then the partial match wins at 0.6', (_c, candOver, clickOver, reason) => {
    const mine = click({ clickId: 'mine', ts: T0 - 2 * HOUR, ...clickOver });
    const partial = reduced({ ts: T0 - 3 * HOUR });

    const d = decideAttribution(signals(), cands({ ipClicks: [mine, partial], ...candOver }), DEFAULTS);

    expect(d).toMatchObject({ method: 'fingerprint', confidence: 0.6 });
    expect(d.click).toBe(partial);
    expect(d.candidates).toEqual([note('mine', 'ineligible', reason), note('reduced', 'won', 'last eligible click')]);
  });

  it('when only partial matches remain (reduced agent, iOS version frozen at 18_6), then the last one wins at 0.6', () => {
    const iphone = { platform: 'IOS' as const, os: 'iOS', deviceModel: 'iPhone' };
    const early = click({ ...iphone, clickId: 'early', osVersion: '18.6', ts: T0 - 3 * HOUR });
    const late = click({ ...iphone, clickId: 'late', osVersion: '18.7', ts: T0 - HOUR });
    const ios26 = signals({ platform: 'IOS', os: 'iOS', osVersion: '26.0.1', deviceModel: 'iPhone' });

    const d = decideAttribution(ios26, cands({ ipClicks: [early, late] }), DEFAULTS);

    expect(d).toMatchObject({ method: 'fingerprint', confidence: 0.6 });
    expect(d.click).toBe(late);
    expect(d.candidates).toEqual([
      note('early', 'lost', 'a later click won'),
      note('late', 'won', 'last eligible click'),
    ]);
  });
});

describe('decideAttribution: an iPad in desktop mode (Mac Safari click)', () => {
  it('when an iPad installs from the IP of such a click, then fingerprint wins with the lower confidence 0.6', () => {
    const d = decideAttribution(ipad(), cands({ ipClicks: [macOrIpad()] }), DEFAULTS);

    expect(d).toMatchObject({ method: 'fingerprint', attributionType: 'INORGANIC', confidence: 0.6, campaignId: 1 });
    expect(d.click?.clickId).toBe('mac-or-ipad');
    expect(d.candidates).toEqual([
      { method: 'fingerprint', click_id: 'mac-or-ipad', campaign_id: 1, outcome: 'won', reason: 'last eligible click' },
    ]);
  });

  it.each([
    ['an iPhone', ipad({ deviceModel: 'iPhone15,2' }), 'device differs: os Mac OS vs iOS'],
    ['an Android phone', signals(), 'device differs: os Mac OS vs Android'],
    ['an Android tablet', signals({ osVersion: '14', deviceModel: 'SM-X710' }), 'device differs: os Mac OS vs Android'],
  ])('when %s installs from the IP of such a click, then it stays organic', (_case, s, reason) => {
    const d = decideAttribution(s, cands({ ipClicks: [macOrIpad()] }), DEFAULTS);

    expect(d.method).toBe('organic');
    expect(d.candidates).toEqual([
      { method: 'fingerprint', click_id: 'mac-or-ipad', campaign_id: 1, outcome: 'ineligible', reason },
    ]);
  });

  it.each([
    [
      'a plain Mac click (Chrome: model Macintosh)',
      click({ clickId: 'mac', platform: 'DESKTOP', os: 'Mac OS', osVersion: '10.15.7', deviceModel: 'Macintosh' }),
      'device differs: os Mac OS vs iOS',
    ],
    ['from another IP', macOrIpad({ ip: '100.64.0.8' }), 'different ip'],
    ['past the fingerprint window', macOrIpad({ ts: T0 - DAY - 1 }), 'outside window'],
  ])('when the click is %s, then the iPad stays organic', (_case, other, reason) => {
    const d = decideAttribution(ipad(), cands({ ipClicks: [other] }), DEFAULTS);

    expect(d.method).toBe('organic');
    expect(d.candidates).toEqual([expect.objectContaining({ outcome: 'ineligible', reason })]);
  });

  it('when the click already decided another install, then the iPad does not take it', () => {
    const c = macOrIpad();

    const d = decideAttribution(ipad(), cands({ ipClicks: [c], takenClickIds: new Set([c.clickId]) }), DEFAULTS);

    expect(d.method).toBe('organic');
    expect(d.candidates).toEqual([
      expect.objectContaining({ outcome: 'ineligible', reason: 'click already attributed' }),
    ]);
  });

  it('when the iPad also has an ad-id click, then ad_id wins and the Mac Safari click is noted lost to it', () => {
    const byAdId = click({ clickId: 'by-ad-id', campaignId: 5, displayId: 'camp-5', ts: T0 - 3 * HOUR });

    const d = decideAttribution(ipad(), cands({ adIdClicks: [byAdId], ipClicks: [macOrIpad()] }), DEFAULTS);

    expect(d).toMatchObject({ method: 'ad_id', confidence: 1, campaignId: 5 });
    expect(d.candidates).toContainEqual({
      method: 'fingerprint',
      click_id: 'mac-or-ipad',
      campaign_id: 1,
      outcome: 'lost',
      reason: 'a more trusted method won (ad_id)',
    });
  });

  it('when the iOS SDK’s real `device` ("iPad", UIDevice.model) installs, then it takes the click at 0.6, noted won', () => {
    const d = decideAttribution(ipad({ deviceModel: 'iPad' }), cands({ ipClicks: [macOrIpad()] }), DEFAULTS);

    expect(d).toMatchObject({ method: 'fingerprint', campaignId: 1, confidence: 0.6 });
    expect(d.candidates).toEqual([
      { method: 'fingerprint', click_id: 'mac-or-ipad', campaign_id: 1, outcome: 'won', reason: 'last eligible click' },
    ]);
  });

  it('when clicks lie at the fingerprint window’s edges, then exactly the window before the install matches, 1 ms more does not, a later click never', () => {
    const w = DEFAULTS.fingerprintWindowMs;
    const edge = macOrIpad({ clickId: 'edge', ts: T0 - w });
    const older = macOrIpad({ clickId: 'older', ts: T0 - w - 1 });
    const after = macOrIpad({ clickId: 'after', ts: T0 + 1 });

    const d = decideAttribution(ipad(), cands({ ipClicks: [older, edge, after] }), DEFAULTS);

    expect(d.click?.clickId).toBe('edge');
    expect(d.confidence).toBe(0.6);
    expect(d.candidates).toEqual([
      expect.objectContaining({ click_id: 'older', outcome: 'ineligible', reason: 'outside window' }),
      expect.objectContaining({ click_id: 'after', outcome: 'ineligible', reason: 'click after install' }),
      expect.objectContaining({ click_id: 'edge', outcome: 'won' }),
    ]);
  });

  it('when two iPads behind one IP are decided in one batch, then the earlier install keeps the click and the other is organic', () => {
    const c = macOrIpad();
    const input = (key: string, installTs: number) => ({
      key,
      projectId: 'p1',
      signals: ipad({ installTs }),
      candidates: cands({ ipClicks: [c] }),
      cfg: DEFAULTS,
    });

    // The later install comes first in the batch.
    const [late, early] = decideBatch([input('b', T0 + 60_000), input('a', T0)]);

    expect(early?.click?.clickId).toBe('mac-or-ipad');
    expect(early?.confidence).toBe(0.6);
    expect(late?.method).toBe('organic');
    expect(late?.candidates).toEqual([
      expect.objectContaining({ click_id: 'mac-or-ipad', outcome: 'ineligible', reason: 'click already attributed' }),
    ]);
  });

  it('when fingerprinting is off for the project, then the iPad stays organic', () => {
    const cfg = attributionSettings({ methods: { fingerprint: false } });

    expect(decideAttribution(ipad(), cands({ ipClicks: [macOrIpad()] }), cfg).method).toBe('organic');
  });
});
