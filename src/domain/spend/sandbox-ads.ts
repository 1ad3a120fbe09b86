// The built-in `sandbox_ads` network: plausible daily spend, impressions and network clicks for a
// campaign (two ad sets with two creatives each), so a new user sees a full report before wiring a
// real network. Deterministic: every value is a function of (seed, campaign display id, day, ad set,
// creative), so a re-run writes nothing and two projects with the same inputs get the same numbers.
import { daysBetween } from '../../lib/days.ts';
import type { Project } from '../../store/postgres/projects.ts';
import type { SpendRowInput } from './spend-row.ts';
import type { SpendRange, SpendSource } from './spend-source.ts';

export const SANDBOX_NETWORK = 'SANDBOX_ADS';

const AD_SETS = [
  { id: 'sbx_as_prospecting', name: 'Prospecting - broad', creatives: ['Video 15s', 'Static banner'] },
  { id: 'sbx_as_lookalike', name: 'Lookalike 1%', creatives: ['Carousel', 'Playable demo'] },
] as const;

/** FNV-1a, 32 bit: a stable seed from text. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** mulberry32: a small seeded generator of floats in [0, 1). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const between = (r: () => number, lo: number, hi: number) => lo + r() * (hi - lo);

function row(seed: number, displayId: string, day: string, adSetIndex: number, creativeIndex: number): SpendRowInput {
  const adSet = AD_SETS[adSetIndex] as (typeof AD_SETS)[number];
  const creativeName = adSet.creatives[creativeIndex] as string;
  const creativeId = `${adSet.id}_cr_${creativeIndex + 1}`;
  // Per creative: a daily budget, a CPM and a CTR; per day: weekday rhythm and noise.
  const base = random(hash(`${seed}|${displayId}|${adSet.id}|${creativeId}`));
  const budget = between(base, 15, 60);
  const cpm = between(base, 4, 12);
  const ctr = between(base, 0.008, 0.025);
  const daily = random(hash(`${seed}|${displayId}|${day}|${adSet.id}|${creativeId}`));
  const weekday = new Date(`${day}T00:00:00Z`).getUTCDay();
  const rhythm = weekday === 0 || weekday === 6 ? 0.8 : 1;
  const cents = Math.round(budget * rhythm * between(daily, 0.85, 1.15) * 100);
  const impressions = Math.round((cents / 100 / (cpm * between(daily, 0.9, 1.1))) * 1000);
  const clicks = Math.round(impressions * ctr * between(daily, 0.8, 1.2));
  return {
    day,
    campaign_display_id: displayId,
    ad_set_id: adSet.id,
    ad_set_name: adSet.name,
    creative_id: creativeId,
    creative_name: creativeName,
    network: SANDBOX_NETWORK,
    amount: `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`,
    impressions,
    clicks,
  };
}

export function sandboxAdsSource(opts: { displayId: string; seed: number }): SpendSource {
  return {
    network: SANDBOX_NETWORK,
    async *pull(_project: Project, range: SpendRange): AsyncIterable<SpendRowInput> {
      for (const day of daysBetween(range.from, range.to)) {
        for (let a = 0; a < AD_SETS.length; a++) {
          for (let c = 0; c < 2; c++) {
            yield row(opts.seed, opts.displayId, day, a, c);
          }
        }
      }
    },
  };
}
