// Random identifiers and key hashing. Keys are 32 random bytes; only their SHA-256 is stored.
import { createHash, randomBytes, randomFillSync } from 'node:crypto';

const ALPHABET = 'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';
/** The same 56 characters in byte order: a time written with them sorts as the time does. */
const SORTED = '23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz';
const BASE = ALPHABET.length;
/** Milliseconds in 8 characters: 56^8 ms is about 3,080 years after 1970. */
const TIME_CHARS = 8;
/** Random characters after the time: 12 × log2(56) ≈ 70 bits per millisecond. */
const TIME_ID_RANDOM_CHARS = 12;
/** Bytes below this map evenly onto the alphabet (224 = 4 × 56); the rest are drawn again. */
const UNBIASED_BELOW = 256 - (256 % BASE);

// Random bytes are taken from a pool refilled in one call (one crypto call per id was most of an
// id's cost); rejection sampling keeps every character uniform.
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

function randomIndex(): number {
  for (;;) {
    if (poolAt === pool.length) {
      randomFillSync(pool);
      poolAt = 0;
    }
    const b = pool[poolAt++] as number;
    if (b < UNBIASED_BELOW) {
      return b % BASE;
    }
  }
}

export function randomCode(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out += ALPHABET[randomIndex()];
  }
  return out;
}

/**
 * An id that starts with its creation time: 8 characters of milliseconds since 1970 (in byte order,
 * so ids sort by time), then 12 random ones (`random`, when given, for reproducible bench data).
 * Twenty URL-safe characters from the same alphabet as before. Fact and click ids use it: ClickHouse
 * orders the fact tables by id within a campaign and day, so neighbouring ids share their leading
 * characters and their times follow each other, which the columns' codecs compress (about 4 bytes
 * less per fact than a fully random id, measured by `npm run bench -- fact-writer`).
 */
export function newTimeId(nowMs: number = Date.now(), random?: string): string {
  let t = Math.max(0, Math.floor(nowMs));
  let time = '';
  for (let i = 0; i < TIME_CHARS; i++) {
    time = SORTED[t % BASE] + time;
    t = Math.floor(t / BASE);
  }
  return time + (random ?? randomCode(TIME_ID_RANDOM_CHARS));
}

/** A click id: opaque, URL-safe (it travels in the Play referrer as lr_click_id), time-ordered. */
export function newClickId(): string {
  return newTimeId();
}

export function newServerKey(): string {
  return `sk_${randomBytes(32).toString('base64url')}`;
}

export function newProjectToken(): string {
  return `pt_${randomBytes(24).toString('base64url')}`;
}

export function hashKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}
