// lib/ids.ts: random codes stay uniform over the alphabet; time ids start with their time, in byte
// order, so ids made later sort after earlier ones and ids made in one millisecond differ.
import { describe, expect, it } from 'vitest';
import { newClickId, newTimeId, randomCode } from '../../src/lib/ids.ts';

const ALPHABET = 'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';

describe('randomCode', () => {
  it('uses every character of the alphabet about equally and nothing else', () => {
    const counts = new Map<string, number>();
    const s = randomCode(560_000);
    expect(s).toHaveLength(560_000);
    for (const c of s) {
      counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    expect([...counts.keys()].sort()).toEqual([...ALPHABET].sort());
    // 10,000 expected per character (standard deviation ~99). Mapping a byte with % 56 and no
    // rejection would give 32 characters ~10,940 and the other 24 ~8,750. Bounds: 6 deviations.
    for (const n of counts.values()) {
      expect(n).toBeGreaterThan(9_400);
      expect(n).toBeLessThan(10_600);
    }
  });
});

describe('newTimeId', () => {
  it('is 20 URL-safe characters that sort by creation time', () => {
    const times = [0, 1, 55, 56, 1_700_000_000_000, 1_700_000_000_001, 1_800_000_000_000, 4_102_444_800_000];
    const ids = times.map((t) => newTimeId(t));
    for (const id of ids) {
      expect(id).toMatch(/^[A-Za-z0-9]{20}$/);
    }
    expect([...ids].sort()).toEqual(ids);
    // 'ab' < 'b…' style traps: a later time never sorts first whatever its random tail.
    expect(newTimeId(1_700_000_000_001, '222222222222') > newTimeId(1_700_000_000_000, 'zzzzzzzzzzzz')).toBe(true);
  });

  it('shares its leading characters with ids of nearby times and keeps the given random tail', () => {
    const a = newTimeId(1_764_000_000_000, 'abcdefghijkm');
    const b = newTimeId(1_764_000_001_000, 'abcdefghijkm');
    expect(a.slice(0, 5)).toBe(b.slice(0, 5));
    expect(a.slice(8)).toBe('abcdefghijkm');
    expect(a).not.toBe(b);
  });

  it('differs between ids made in the same millisecond', () => {
    const now = Date.now();
    const ids = new Set(Array.from({ length: 10_000 }, () => newTimeId(now)));
    expect(ids.size).toBe(10_000);
    expect(newClickId()).toMatch(/^[A-Za-z0-9]{20}$/);
  });
});
