// Random identifiers and key hashing. Keys are 32 random bytes; only their SHA-256 is stored.
import { createHash, randomBytes, randomInt } from 'node:crypto';

const ALPHABET = 'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';

export function randomCode(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out += ALPHABET[randomInt(ALPHABET.length)];
  }
  return out;
}

/** A click id: opaque, URL-safe (it travels in the Play referrer as lr_click_id), ~116 bits. */
export function newClickId(): string {
  return randomCode(20);
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
