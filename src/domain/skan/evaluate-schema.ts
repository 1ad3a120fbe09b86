// Pure SKAN evaluation: a schema and one install's activity totals within the current window →
// the values to answer. Windows follow SKAN 4: 0 = days 0-2, 1 = days 3-7, 2 = days 8-35 after
// install; after day 35 there is nothing to update (null).
import { COARSE_VALUES, type Coarse, type SkanCondition, type SkanSchema } from './schema.ts';

export type WindowActivity = {
  signup: boolean;
  /** Per event name: how many and the sum of their amounts (decimal as number; schema ranges are coarse). */
  events: Record<string, { count: number; amount: number }>;
  revenue: number;
};

export type SkanValues = { fine: number; coarse: Coarse; lock: boolean; window: number };

export const EMPTY_ACTIVITY: WindowActivity = { signup: false, events: {}, revenue: 0 };

const DAY_MS = 86_400_000;

/** The window of a day count since install (0-based), or null past day 35. */
export function windowOf(daysSinceInstall: number): number | null {
  if (daysSinceInstall < 0) {
    return 0;
  }
  if (daysSinceInstall <= 2) {
    return 0;
  }
  if (daysSinceInstall <= 7) {
    return 1;
  }
  return daysSinceInstall <= 35 ? 2 : null;
}

export const daysSince = (installedAtMs: number, nowMs: number): number => Math.floor((nowMs - installedAtMs) / DAY_MS);

const inRange = (v: number, r: { min?: number; max?: number } | undefined): boolean =>
  r === undefined || ((r.min === undefined || v >= r.min) && (r.max === undefined || v < r.max));

function holds(c: SkanCondition, a: WindowActivity): boolean {
  switch (c.type) {
    case 'signup':
      return a.signup;
    case 'event': {
      const e = a.events[c.name];
      return e !== undefined && e.count >= c.min_count && inRange(e.amount, c.amount);
    }
    case 'revenue':
      return a.revenue > 0 && inRange(a.revenue, c.amount);
  }
}

export const coarseRank = (c: Coarse): number => COARSE_VALUES.indexOf(c);

/** What the schema says for this window's activity alone; null past the last window. */
export function evaluateSchema(
  schema: SkanSchema,
  activity: WindowActivity,
  daysSinceInstall: number,
): SkanValues | null {
  const window = windowOf(daysSinceInstall);
  if (window === null) {
    return null;
  }
  const out: SkanValues = { fine: 0, coarse: 'low', lock: false, window };
  for (const rule of schema.rules) {
    if (rule.windows && !rule.windows.includes(window)) {
      continue;
    }
    if (!rule.conditions.every((c) => holds(c, activity))) {
      continue;
    }
    out.fine = Math.max(out.fine, rule.fine);
    out.coarse = coarseRank(rule.coarse) > coarseRank(out.coarse) ? rule.coarse : out.coarse;
    out.lock = out.lock || rule.lock;
  }
  return out;
}

/**
 * Merges a new evaluation into the stored values: the fine value is never lowered (iOS ignores a
 * lower one anyway); within a window the coarse value only rises and a lock holds (Apple ignores
 * updates after lock_postback); a new window starts from its own evaluation's coarse and lock.
 */
export function mergeValues(stored: SkanValues | null, next: SkanValues): SkanValues {
  if (stored === null) {
    return next;
  }
  if (stored.window === next.window) {
    if (stored.lock) {
      return stored;
    }
    return {
      fine: Math.max(stored.fine, next.fine),
      coarse: coarseRank(next.coarse) > coarseRank(stored.coarse) ? next.coarse : stored.coarse,
      lock: next.lock,
      window: next.window,
    };
  }
  if (next.window < stored.window) {
    return stored;
  }
  return { ...next, fine: Math.max(stored.fine, next.fine) };
}
