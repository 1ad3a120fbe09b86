// Identifiers for customer-list uploads, normalized as Meta (Custom Audiences from a customer file)
// and Google (Customer Match) ask before SHA-256: an email trimmed and lower-cased; a phone in E.164
// (Meta hashes its digits with the country code and no '+', Google the E.164 text with '+'); a mobile
// advertising id (GAID / IDFA) as stored (lower-case UUID), never hashed. Raw email and phone never
// leave this file. A value that is already a SHA-256 (64 hex) passes through, as Meta's SDK does.
import { createHash } from 'node:crypto';

const SHA256_HEX = /^[a-f0-9]{64}$/;
const EMAIL =
  /^[\w!#$%&'*+/=?^`{|}~-]+(?:\.[\w!#$%&'*+/=?^`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
/** Separators people type inside a number; anything else but digits and one leading '+' makes it unusable. */
const PHONE_SEPARATORS = /[\s\-.()/]/g;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** E.164: a country code (no leading 0) and the national number, at most 15 digits in all. */
const E164_DIGITS = /^[1-9]\d{6,14}$/;

export const sha256Hex = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');

/** SHA-256 of the trimmed, lower-cased address; undefined when empty or not shaped as an address. */
export function hashEmail(raw: string | null): string | undefined {
  const v = (raw ?? '').trim().toLowerCase();
  if (SHA256_HEX.test(v)) {
    return v;
  }
  return EMAIL.test(v) ? sha256Hex(v) : undefined;
}

/**
 * The phone's E.164 digits (country code first, no '+'), or undefined when it has no usable form.
 * A number written with '+' or the international prefix 00 carries its country code; any other
 * takes `countryCode` after dropping one national trunk 0 ('09876 543210' + 91 → 919876543210).
 * Without a country code such a number is unusable: guessing one would match other people.
 */
export function e164Digits(raw: string | null, countryCode: string | null): string | undefined {
  const v = (raw ?? '').trim().replace(PHONE_SEPARATORS, '');
  let digits: string;
  if (v.startsWith('+')) {
    digits = v.slice(1);
  } else if (v.startsWith('00')) {
    digits = v.slice(2);
  } else if (countryCode !== null && /^\d+$/.test(v)) {
    digits = countryCode + v.replace(/^0/, '');
  } else {
    return undefined;
  }
  return E164_DIGITS.test(digits) ? digits : undefined;
}

export type PhoneHashes = { meta: string; google: string };

/** Meta's hash (of the digits) and Google's (of '+' and the digits); a stored hash serves both. */
export function hashPhone(raw: string | null, countryCode: string | null): PhoneHashes | undefined {
  const v = (raw ?? '').trim().toLowerCase();
  if (SHA256_HEX.test(v)) {
    return { meta: v, google: v };
  }
  const digits = e164Digits(raw, countryCode);
  return digits === undefined ? undefined : { meta: sha256Hex(digits), google: sha256Hex(`+${digits}`) };
}

/** A GAID or IDFA as a lower-case UUID; anything else an app sent is not an advertising id. */
export function mobileAdId(raw: string | null): string | undefined {
  const v = (raw ?? '').trim().toLowerCase();
  return UUID.test(v) && !/^[0-]+$/.test(v) ? v : undefined;
}
