// The attribution engine: pure, deterministic, explainable. Methods in order of trust:
//   a. Play Install Referrer carrying our click id     (deterministic)
//   b. a campaign link given on init / handle-deeplink (deterministic)
//   c. a network's own claim (Meta referrer, ASA)      (deterministic, through resolvers)
//   d. advertising id seen on a click                  (deterministic)
//   e. same IP + matching OS, version, model in the fingerprint window (probabilistic); an iPad
//      install may also take a Mac Safari click (an iPad in desktop mode), as a partial match
//   f. otherwise organic.
// Within a method the last eligible click wins; within fingerprint, the last exact device match
// before any partial one (fingerprint-click.ts). Every candidate is noted with why it won or lost,
// those of the less trusted methods too (lost to the winning method, or ineligible). A click of a
// campaign deleted before the install is no candidate; a click that already decided another install
// is no fingerprint match (the device that clicked is accounted for).

import { fingerprintClick, notFingerprinted } from './fingerprint-click.ts';
import { inLookback, lastEligible } from './last-eligible.ts';
import type { AttributionSettings } from './settings.ts';
import type { CandidateNote, Candidates, Click, Decision, InstallSignals, Method, NetworkDetails } from './types.ts';

type Win = { method: Method; click: Click | null; confidence: number; touchType: 'click' | 'view' };

/** Why a click of a deterministic method cannot be used (campaign deleted, window), or null when it can. */
function notInLookback(click: Click, s: InstallSignals, cand: Candidates, cfg: AttributionSettings): string | null {
  if (cand.deletedCampaignIds?.has(click.campaignId)) {
    return 'campaign deleted';
  }
  return inLookback(click, s.installTs, cfg.clickLookbackMs);
}

function choose(s: InstallSignals, cand: Candidates, cfg: AttributionSettings, notes: CandidateNote[]): Win | null {
  const lookback = (c: Click) => notInLookback(c, s, cand, cfg);
  if (cfg.methods.playReferrer && s.playReferrer?.clickId) {
    const c = cand.referrerClick;
    if (!c) {
      notes.push({
        method: 'play_referrer',
        click_id: s.playReferrer.clickId,
        campaign_id: 0,
        outcome: 'ineligible',
        reason: 'click not found in this project',
      });
    } else if (lastEligible('play_referrer', [c], notes, lookback)) {
      return { method: 'play_referrer', click: c, confidence: 1, touchType: 'click' };
    }
  }
  if (cfg.methods.link && s.linkCampaign) {
    notes.push({
      method: 'link',
      click_id: '',
      campaign_id: s.linkCampaign.campaignId,
      outcome: 'won',
      reason: 'campaign link opened by the app',
    });
    return { method: 'link', click: null, confidence: 1, touchType: 'click' };
  }
  if (cfg.methods.networkResolvers && s.networkClaim) {
    const claim = s.networkClaim;
    notes.push({
      method: claim.method,
      click_id: '',
      campaign_id: claim.campaignId,
      outcome: 'won',
      reason: `claimed by ${claim.network}`,
    });
    return { method: claim.method, click: null, confidence: 1, touchType: claim.touchType };
  }
  if (cfg.methods.adId) {
    const c = lastEligible('ad_id', cand.adIdClicks, notes, lookback);
    if (c) {
      return { method: 'ad_id', click: c, confidence: 1, touchType: 'click' };
    }
  }
  if (cfg.methods.fingerprint && cfg.fingerprintWindowMs > 0) {
    const f = fingerprintClick(s, cand, cfg, notes);
    if (f) {
      return { method: 'fingerprint', click: f.click, confidence: f.confidence, touchType: 'click' };
    }
  }
  return null;
}

/** Methods in order of trust; a network's claim (meta_referrer, apple_search_ads) ranks as `claim`. */
const TRUST: readonly string[] = ['play_referrer', 'link', 'claim', 'ad_id', 'fingerprint'];
const trust = (m: Method) => TRUST.indexOf(m === 'meta_referrer' || m === 'apple_search_ads' ? 'claim' : m);

/**
 * The candidates of the methods below the winner, which choose() never reached: each is noted as
 * lost to the more trusted method, or ineligible on its own method's terms (README: every decision
 * lists every candidate considered). The winning click is not noted twice. Bounded as the lookups
 * are (per signal the newest 200 clicks up to the install and a few after it, gather-candidates.ts).
 */
function notePassedOver(
  s: InstallSignals,
  cand: Candidates,
  cfg: AttributionSettings,
  win: Win,
  notes: CandidateNote[],
) {
  const rank = trust(win.method);
  const reason = `a more trusted method won (${win.method})`;
  const clicks = (method: Method, list: Click[], ineligible: (c: Click) => string | null) => {
    for (const c of list) {
      if (c.clickId === win.click?.clickId) {
        continue;
      }
      const why = ineligible(c);
      notes.push({
        method,
        click_id: c.clickId,
        campaign_id: c.campaignId,
        outcome: why ? 'ineligible' : 'lost',
        reason: why ?? reason,
      });
    }
  };
  if (rank < trust('link') && cfg.methods.link && s.linkCampaign) {
    notes.push({ method: 'link', click_id: '', campaign_id: s.linkCampaign.campaignId, outcome: 'lost', reason });
  }
  if (rank < trust('meta_referrer') && cfg.methods.networkResolvers && s.networkClaim) {
    notes.push({
      method: s.networkClaim.method,
      click_id: '',
      campaign_id: s.networkClaim.campaignId,
      outcome: 'lost',
      reason,
    });
  }
  if (rank < trust('ad_id') && cfg.methods.adId) {
    clicks('ad_id', cand.adIdClicks, (c) => notInLookback(c, s, cand, cfg));
  }
  if (rank < trust('fingerprint') && cfg.methods.fingerprint && cfg.fingerprintWindowMs > 0) {
    clicks('fingerprint', cand.ipClicks, (c) => notFingerprinted(c, s, cand, cfg));
  }
}

function suspicion(s: InstallSignals, win: Win | null, cfg: AttributionSettings): string {
  const click = win?.click;
  if (!click) {
    return '';
  }
  // Click injection: a click fired after the Play download began, whichever method matched it.
  const begin = s.playReferrer?.installBeginTs;
  if (begin !== null && begin !== undefined && begin < click.ts) {
    return 'install began before the click (click injection)';
  }
  if (s.installTs - click.ts < cfg.suspiciousCtitMs) {
    return `click-to-install time under ${cfg.suspiciousCtitMs / 1000} s`;
  }
  return '';
}

/** The winning click's Google ids and source, or what the network's claim told; only known keys. */
function networkDetails(click: Click | null, claim: InstallSignals['networkClaim']): NetworkDetails {
  if (!click) {
    return claim?.details ?? {};
  }
  const known: [string, string][] = [
    ['gclid', click.gclid],
    ['gbraid', click.gbraid],
    ['ga_source', click.utmSource],
  ];
  return Object.fromEntries(known.filter(([, v]) => v !== ''));
}

/**
 * When the winning click happened: our click's, or the click time a network's claim carried (not
 * for a view; a time after the install is none: the network's clock or the device's, not a tap).
 */
function clickTs(s: InstallSignals, click: Click | null, claim: InstallSignals['networkClaim']): number | null {
  if (click) {
    return click.ts;
  }
  return claim?.touchType === 'click' && claim.ts !== null && claim.ts <= s.installTs ? claim.ts : null;
}

export function decideAttribution(s: InstallSignals, cand: Candidates, cfg: AttributionSettings): Decision {
  const notes: CandidateNote[] = [];
  const win = choose(s, cand, cfg, notes);
  if (win) {
    notePassedOver(s, cand, cfg, win, notes);
  }
  const reason = suspicion(s, win, cfg);
  const click = win?.click ?? null;
  const claim = win && (win.method === 'meta_referrer' || win.method === 'apple_search_ads') ? s.networkClaim : null;
  const link = win?.method === 'link' ? s.linkCampaign : null;
  const src = click ?? claim;
  const clickedAt = clickTs(s, click, claim);
  return {
    kind: s.seenBefore ? 'reinstall' : 'install',
    method: win?.method ?? 'organic',
    attributionType: win ? 'INORGANIC' : 'ORGANIC',
    touchType: win?.touchType ?? '',
    campaignId: click?.campaignId ?? claim?.campaignId ?? link?.campaignId ?? 0,
    displayId: click?.displayId ?? claim?.displayId ?? link?.displayId ?? '',
    network: click?.network ?? claim?.network ?? link?.network ?? '',
    adSetId: src?.adSetId ?? '',
    adSetName: src?.adSetName ?? '',
    creativeId: src?.creativeId ?? '',
    creativeName: src?.creativeName ?? '',
    keywordId: src?.keywordId ?? '',
    keywordName: src?.keywordName ?? '',
    click,
    ...(clickedAt !== null ? { clickTs: clickedAt } : {}),
    networkDetails: networkDetails(click, claim),
    ctitMs: clickedAt !== null ? s.installTs - clickedAt : -1,
    confidence: win ? win.confidence : 1,
    suspicious: reason !== '',
    suspiciousReason: reason,
    candidates: notes,
    windows: {
      click_lookback_ms: cfg.clickLookbackMs,
      fingerprint_window_ms: cfg.fingerprintWindowMs,
      reattribution_window_ms: cfg.reattributionWindowMs,
    },
  };
}
