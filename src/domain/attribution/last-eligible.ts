// Picking a method's click among its candidates: the last eligible one wins (ties broken by click
// id, so the choice does not depend on the candidates' order), and every candidate is noted with
// why it won, lost or was ineligible.
import type { CandidateNote, Click, Method } from './types.ts';

/** Why a click is outside a window ending at the install (a click after it never counts), or null. */
export function inLookback(click: Click, installTs: number, windowMs: number): string | null {
  if (click.ts > installTs) {
    return 'click after install';
  }
  if (installTs - click.ts > windowMs) {
    return 'outside window';
  }
  return null;
}

/**
 * Picks the last eligible click of a method, noting every candidate. With `outranked`, an eligible
 * click it names (a reason) does not compete and is noted lost for that reason.
 */
export function lastEligible(
  method: Method,
  clicks: Click[],
  notes: CandidateNote[],
  eligible: (c: Click) => string | null,
  outranked: (c: Click) => string | null = () => null,
): Click | null {
  let best: Click | null = null;
  for (const c of clicks) {
    const why = eligible(c);
    if (why) {
      notes.push({ method, click_id: c.clickId, campaign_id: c.campaignId, outcome: 'ineligible', reason: why });
    } else if (!outranked(c) && (!best || c.ts > best.ts || (c.ts === best.ts && c.clickId > best.clickId))) {
      best = c;
    }
  }
  for (const c of clicks) {
    if (c === best) {
      notes.push({
        method,
        click_id: c.clickId,
        campaign_id: c.campaignId,
        outcome: 'won',
        reason: 'last eligible click',
      });
    } else if (!eligible(c)) {
      notes.push({
        method,
        click_id: c.clickId,
        campaign_id: c.campaignId,
        outcome: 'lost',
        reason: outranked(c) ?? 'a later click won',
      });
    }
  }
  return best;
}
