// Deterministic bench data: every device id, user agent and body comes from one seeded generator,
// so two runs send the same traffic. (Ids the service makes itself, such as click ids, still vary.)

export type Rng = {
  next: () => number;
  int: (maxExclusive: number) => number;
  pick: <T>(items: readonly T[]) => T;
  hex: (chars: number) => string;
  uuid: () => string;
};

/** mulberry32: small, fast and good enough for picking test data. */
export function createRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const hex = (chars: number) => {
    let s = '';
    for (let i = 0; i < chars; i++) {
      s += int(16).toString(16);
    }
    return s;
  };
  return {
    next,
    int,
    pick: (items) => items[int(items.length)] as (typeof items)[number],
    hex,
    uuid: () => `${hex(8)}-${hex(4)}-4${hex(3)}-${(8 + int(4)).toString(16)}${hex(3)}-${hex(12)}`,
  };
}

/** Mobile browsers as they open campaign links (no in-app browsers: those get the HTML page, not a 302). */
export const ANDROID_AGENTS = [
  'Mozilla/5.0 (Linux; Android 14; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Linux; Android 13; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/123.0.6312.99 Mobile Safari/537.36',
  'Mozilla/5.0 (Linux; Android 12; M2101K6G) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.6261.119 Mobile Safari/537.36',
  'Mozilla/5.0 (Linux; Android 14; CPH2581) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36',
] as const;

export const IPHONE_AGENTS = [
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
] as const;

/** Three Android visits for one iPhone visit. */
export function mobileAgent(rng: Rng): string {
  return rng.int(4) === 0 ? rng.pick(IPHONE_AGENTS) : rng.pick(ANDROID_AGENTS);
}

/** A JSON body of exactly `bytes` bytes, shaped like an SDK payload (the POST ceiling's body). */
export function jsonBodyOfSize(rng: Rng, bytes: number): string {
  const base = {
    token: `pt_${rng.hex(32)}`,
    platform: 'ANDROID',
    install_instance_id: rng.uuid(),
    event_name: 'purchase',
    event_data: { sku: `sku_${rng.hex(6)}`, amount: 12.5, currency: 'USD' },
    device_data: { gaid: rng.uuid(), system_version: '14', device_name: 'samsung SM-S911B' },
    pad: '',
  };
  const without = Buffer.byteLength(JSON.stringify(base));
  if (without > bytes) {
    throw new Error(`a ${bytes}-byte body is too small for the payload (${without} bytes)`);
  }
  base.pad = 'x'.repeat(bytes - without);
  return JSON.stringify(base);
}
