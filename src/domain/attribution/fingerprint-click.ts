// The fingerprint method: an IP click of the install's device, told by OS, version and model (or an
// iPad and the `Macintosh or iPad` click it may have made in desktop mode), in the fingerprint
// window, not already the click of another install. An exact device match is preferred to a
// partial one (0.9 and 0.6 confidence).
import { matchesDesktopModeIpad } from './desktop-ipad-match.ts';
import { type MatchResult, matchDevice } from './device-match.ts';
import { inLookback, lastEligible } from './last-eligible.ts';
import type { AttributionSettings } from './settings.ts';
import type { CandidateNote, Candidates, Click, InstallSignals } from './types.ts';

/** The fingerprint's device check: OS, version and model, or an iPad and a click it may have made in desktop mode. */
function fingerprintDevice(click: Click, s: InstallSignals): MatchResult {
  const m = matchDevice(click, s);
  return m.match || !matchesDesktopModeIpad(click, s)
    ? m
    : { match: true, strength: 'partial', reason: 'an iPad in desktop mode may have made the click' };
}

/**
 * Why an IP click cannot be the install's fingerprint match (campaign deleted, window, IP, device,
 * the click already decided another install), or null when it can.
 */
export function notFingerprinted(
  click: Click,
  s: InstallSignals,
  cand: Candidates,
  cfg: AttributionSettings,
): string | null {
  if (cand.deletedCampaignIds?.has(click.campaignId)) {
    return 'campaign deleted';
  }
  const w = inLookback(click, s.installTs, Math.min(cfg.fingerprintWindowMs, cfg.clickLookbackMs));
  if (w) {
    return w;
  }
  if (click.ip !== s.ip) {
    return 'different ip';
  }
  const m = fingerprintDevice(click, s);
  if (!m.match) {
    return `device differs: ${m.reason}`;
  }
  return cand.takenClickIds?.has(click.clickId) ? 'click already attributed' : null;
}

/**
 * The fingerprint's click: the last eligible exact device match; only when there is none, the last
 * partial one (a reduced or frozen agent, a `Macintosh or iPad` click). A partial match says less of
 * the device, so a later one of another device behind the IP must not beat the install's own exact
 * click only by being later; passed over, it is noted lost to the exact match.
 */
function lastFingerprint(
  s: InstallSignals,
  cand: Candidates,
  cfg: AttributionSettings,
  notes: CandidateNote[],
): Click | null {
  const eligible = (c: Click) => notFingerprinted(c, s, cand, cfg);
  const partial = (c: Click) => fingerprintDevice(c, s).strength === 'partial';
  const anyExact = cand.ipClicks.some((c) => !eligible(c) && !partial(c));
  const outranked = (c: Click) => (anyExact && partial(c) ? 'an exact device match won' : null);
  return lastEligible('fingerprint', cand.ipClicks, notes, eligible, outranked);
}

/** The fingerprint's winning click and its confidence (0.9 exact, 0.6 partial), or null. */
export function fingerprintClick(
  s: InstallSignals,
  cand: Candidates,
  cfg: AttributionSettings,
  notes: CandidateNote[],
): { click: Click; confidence: number } | null {
  const click = lastFingerprint(s, cand, cfg, notes);
  return click ? { click, confidence: fingerprintDevice(click, s).strength === 'exact' ? 0.9 : 0.6 } : null;
}
