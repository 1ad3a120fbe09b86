// Hand-built inputs of the attribution engine (pure unit tests): a click, an install's signals, a
// network's claim and the candidates, each with defaults that match one another (an Android phone,
// a Samsung SM-S911B on Android 14 behind 100.64.0.7, its click an hour before the install at T0).
import type { Candidates, Click, InstallSignals, NetworkClaim } from '../../src/domain/attribution/types.ts';

export const SECOND = 1000;
export const HOUR = 3600 * SECOND;
export const DAY = 24 * HOUR;
export const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);

export function click(over: Partial<Click> = {}): Click {
  return {
    clickId: 'click-1',
    ts: T0 - HOUR,
    campaignId: 1,
    displayId: 'camp-1',
    platform: 'ANDROID',
    ip: '100.64.0.7',
    os: 'Android',
    osVersion: '14',
    deviceModel: 'SM-S911B',
    network: 'META',
    adSetId: 'as-1',
    adSetName: 'Set 1',
    creativeId: 'cr-1',
    creativeName: 'Creative 1',
    keywordId: '',
    keywordName: '',
    gclid: '',
    gbraid: '',
    utmSource: '',
    ...over,
  };
}

export function signals(over: Partial<InstallSignals> = {}): InstallSignals {
  return {
    installTs: T0,
    platform: 'ANDROID',
    ip: '100.64.0.7',
    os: 'Android',
    osVersion: '14',
    deviceModel: 'samsung SM-S911B',
    playReferrer: null,
    linkCampaign: null,
    networkClaim: null,
    seenBefore: false,
    ...over,
  };
}

export function claim(over: Partial<NetworkClaim> = {}): NetworkClaim {
  return {
    method: 'meta_referrer',
    network: 'META',
    campaignId: 3,
    displayId: 'camp-net',
    ts: T0 - HOUR,
    touchType: 'view',
    adSetId: 'meta-as',
    adSetName: 'Meta set',
    creativeId: 'meta-cr',
    creativeName: 'Meta creative',
    keywordId: '',
    keywordName: '',
    ...over,
  };
}

export const NONE: Candidates = { referrerClick: null, adIdClicks: [], ipClicks: [] };
export const cands = (over: Partial<Candidates>): Candidates => ({ ...NONE, ...over });
