// SKAN schema evaluation (product-notes: SKAN 4 windows 0-2, 3-7, 8-35 days; fine 0-63; coarse
// low/medium/high; lock). Tables over window edges, rule matching, the monotonic fine value and lock.
import { describe, expect, it } from 'vitest';
import {
  EMPTY_ACTIVITY,
  evaluateSchema,
  mergeValues,
  type SkanValues,
  type WindowActivity,
  windowOf,
} from '../../src/domain/skan/evaluate-schema.ts';
import { type SkanSchema, skanSchemaSchema } from '../../src/domain/skan/schema.ts';
import { validateSkanSchema } from '../../src/domain/skan/validate-schema.ts';

const schema: SkanSchema = skanSchemaSchema.parse({
  rules: [
    { fine: 1, coarse: 'low', conditions: [{ type: 'signup' }] },
    { fine: 10, coarse: 'medium', conditions: [{ type: 'event', name: 'level_up', min_count: 3 }] },
    { fine: 20, coarse: 'medium', conditions: [{ type: 'event', name: 'cart', amount: { min: 10, max: 50 } }] },
    { fine: 40, coarse: 'high', conditions: [{ type: 'revenue', amount: { min: 0, max: 100 } }] },
    { fine: 63, coarse: 'high', lock: true, conditions: [{ type: 'revenue', amount: { min: 100 } }] },
    { fine: 5, coarse: 'medium', windows: [1, 2], conditions: [{ type: 'event', name: 'return' }] },
  ],
});

const act = (a: Partial<WindowActivity>): WindowActivity => ({ ...EMPTY_ACTIVITY, ...a });
const v = (fine: number, coarse: SkanValues['coarse'], lock: boolean, window: number): SkanValues => ({
  fine,
  coarse,
  lock,
  window,
});

describe('windowOf', () => {
  it.each([
    [0, 0],
    [2, 0],
    [3, 1],
    [7, 1],
    [8, 2],
    [35, 2],
    [36, null],
    [400, null],
  ])('when %i days have passed since install, then window %s', (days, window) => {
    expect(windowOf(days)).toBe(window);
  });
});

describe('evaluateSchema', () => {
  it.each<[string, Partial<WindowActivity>, number, SkanValues | null]>([
    ['no activity', {}, 0, v(0, 'low', false, 0)],
    ['a sign-up on day 0', { signup: true }, 0, v(1, 'low', false, 0)],
    ['a sign-up on day 2 (last day of window 0)', { signup: true }, 2, v(1, 'low', false, 0)],
    ['a sign-up on day 3 (first day of window 1)', { signup: true }, 3, v(1, 'low', false, 1)],
    ['2 level_up events (min_count 3)', { events: { level_up: { count: 2, amount: 0 } } }, 1, v(0, 'low', false, 0)],
    ['3 level_up events', { events: { level_up: { count: 3, amount: 0 } } }, 1, v(10, 'medium', false, 0)],
    [
      'cart amount 10 (range start, inclusive)',
      { events: { cart: { count: 1, amount: 10 } } },
      0,
      v(20, 'medium', false, 0),
    ],
    ['cart amount 50 (range end, exclusive)', { events: { cart: { count: 1, amount: 50 } } }, 0, v(0, 'low', false, 0)],
    ['revenue 99.99', { revenue: 99.99 }, 0, v(40, 'high', false, 0)],
    ['revenue 100 locks', { revenue: 100 }, 0, v(63, 'high', true, 0)],
    ['sign-up and revenue: the highest fine wins', { signup: true, revenue: 5 }, 0, v(40, 'high', false, 0)],
    ['a window-1 rule in window 0', { events: { return: { count: 1, amount: 0 } } }, 2, v(0, 'low', false, 0)],
    ['a window-1 rule on day 3', { events: { return: { count: 1, amount: 0 } } }, 3, v(5, 'medium', false, 1)],
    [
      'a window-1 rule on day 8 (window 2)',
      { events: { return: { count: 1, amount: 0 } } },
      8,
      v(5, 'medium', false, 2),
    ],
    ['day 35 is still window 2', { signup: true }, 35, v(1, 'low', false, 2)],
    ['day 36 is past the last window', { signup: true }, 36, null],
  ])('when %s, then the expected values', (_name, activity, days, expected) => {
    expect(evaluateSchema(schema, act(activity), days)).toEqual(expected);
  });
});

describe('mergeValues', () => {
  it.each<[string, SkanValues | null, SkanValues, SkanValues]>([
    ['first evaluation', null, v(10, 'medium', false, 0), v(10, 'medium', false, 0)],
    ['a higher fine value raises it', v(10, 'medium', false, 0), v(40, 'high', false, 0), v(40, 'high', false, 0)],
    ['a lower fine value never lowers it', v(40, 'high', false, 0), v(10, 'low', false, 0), v(40, 'high', false, 0)],
    ['a locked window keeps its values', v(63, 'high', true, 0), v(63, 'high', false, 0), v(63, 'high', true, 0)],
    [
      'a new window keeps the fine value, takes its own coarse',
      v(40, 'high', true, 0),
      v(5, 'medium', false, 1),
      v(40, 'medium', false, 1),
    ],
    [
      'a new window with a higher fine value raises it',
      v(10, 'low', false, 0),
      v(20, 'low', true, 1),
      v(20, 'low', true, 1),
    ],
    [
      'an earlier window never replaces a later one',
      v(5, 'medium', false, 2),
      v(63, 'high', true, 1),
      v(5, 'medium', false, 2),
    ],
  ])('when %s, then the merged values', (_name, stored, next, expected) => {
    expect(mergeValues(stored, next)).toEqual(expected);
  });

  it('when a sequence of evaluations arrives, then the fine value never decreases', () => {
    let stored: SkanValues | null = null;
    const seen: number[] = [];
    for (const [fine, window] of [
      [5, 0],
      [30, 0],
      [2, 0],
      [10, 1],
      [63, 2],
      [0, 2],
    ] as const) {
      stored = mergeValues(stored, v(fine, 'low', false, window));
      seen.push(stored.fine);
    }
    expect(seen).toEqual([5, 30, 30, 30, 63, 63]);
  });
});

describe('validateSkanSchema', () => {
  it.each<[string, unknown, string]>([
    [
      'a fine value above 63',
      { rules: [{ fine: 64, coarse: 'low', conditions: [{ type: 'signup' }] }] },
      'rules.0.fine',
    ],
    [
      'an upper-case coarse value',
      { rules: [{ fine: 1, coarse: 'HIGH', conditions: [{ type: 'signup' }] }] },
      'rules.0.coarse',
    ],
    ['no conditions', { rules: [{ fine: 1, coarse: 'low', conditions: [] }] }, 'rules.0.conditions'],
    [
      'an empty amount range',
      { rules: [{ fine: 1, coarse: 'low', conditions: [{ type: 'revenue', amount: { min: 5, max: 5 } }] }] },
      'rules.0.conditions.0.amount',
    ],
    ['no rules', { rules: [] }, 'rules'],
    ['an unknown key', { rules: [{ fine: 1, coarse: 'low', conditions: [{ type: 'signup' }] }], extra: 1 }, ''],
  ])('when %s, then invalid with the path', (_name, raw, path) => {
    const r = validateSkanSchema(raw);
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.problem).toContain(path);
  });

  it('when a rule leaves out lock and min_count, then they default to false and 1', () => {
    const r = validateSkanSchema({ rules: [{ fine: 3, coarse: 'low', conditions: [{ type: 'event', name: 'x' }] }] });
    expect(r).toEqual({
      ok: true,
      schema: {
        rules: [{ fine: 3, coarse: 'low', lock: false, conditions: [{ type: 'event', name: 'x', min_count: 1 }] }],
      },
    });
  });
});
