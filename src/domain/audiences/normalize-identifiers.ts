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
 * "+44 (0)20 …", "0044 (0) 20 …": the national trunk 0 that many write after the country code,
 * dialled only inside the country. Groups: the prefix, then the country code as written.
 */
const TRUNK_AFTER_CODE = /^(\+|00)([\s\-.]*\(?\d{1,3}\)?)[\s\-.]*\(\s*0\s*\)/;
/**
 * Countries with no trunk 0, whose numbers may start with a 0 that is part of the E.164 number
 * (+39 06 …): Italy, San Marino, and Côte d'Ivoire (10-digit numbers since 2021, +225 07 07 …).
 * Their leading 0 is never dropped.
 */
const ZERO_IN_NUMBER = new Set(['39', '378', '225']);
/**
 * The longest national number (without its trunk prefix) of a person's phone, for countries where
 * it is known for sure: a longer number that starts with the country code already carries it
 * ('919876543210' with 91), and a longer one that does not is no number of that country. 7 is
 * Russia and Kazakhstan (one plan, 10 digits).
 */
const NATIONAL_MAX_DIGITS: Readonly<Record<string, number>> = {
  '1': 10,
  '7': 10,
  '33': 9,
  '34': 9,
  '44': 10,
  '91': 10,
};
/**
 * National trunk prefixes other than 0: Russia and Kazakhstan dial 8 before a national number
 * ('8 912 345-67-89' is +7 912 345 67 89). 8 also starts national numbers there (+7 800 …), so it
 * is the trunk prefix only in front of a whole national number (11 digits in all).
 */
const TRUNK_PREFIX: Readonly<Record<string, string>> = { '7': '8' };

/** The number written with '+' or 00, without a "(0)" after its country code (kept where it is part of the number). */
function withoutTrunkAfterCode(v: string): string {
  return v.replace(TRUNK_AFTER_CODE, (_all, prefix: string, code: string) => {
    const zero = ZERO_IN_NUMBER.has(code.replace(/\D/g, '')) ? '0' : '';
    return `${prefix}${code}${zero}`;
  });
}

/**
 * Digits written with their country code ('+44 07911 …'), without a trunk prefix typed after the
 * code: dropped only where the country's longest national number is known, the number is longer
 * than that, and what is left fits ('+44 07911 123456' → 447911123456, '+7 8 912 …' →
 * 79123456789). The table's codes are no prefix of one another, so at most one applies.
 */
function withoutTypedTrunk(digits: string): string {
  for (const [code, max] of Object.entries(NATIONAL_MAX_DIGITS)) {
    const national = digits.slice(code.length);
    const prefix = TRUNK_PREFIX[code] ?? '0';
    if (digits.startsWith(code) && national.length > max && national.startsWith(prefix)) {
      return national.length - prefix.length <= max ? code + national.slice(prefix.length) : digits;
    }
  }
  return digits;
}

/** The national number without its trunk prefix, and whether it had one (see e164Digits). */
function withoutTrunk(national: string, countryCode: string): { v: string; trunk: boolean } {
  if (ZERO_IN_NUMBER.has(countryCode)) {
    return { v: national, trunk: false };
  }
  const prefix = TRUNK_PREFIX[countryCode] ?? '0';
  const max = NATIONAL_MAX_DIGITS[countryCode];
  const whole = prefix === '0' || (max !== undefined && national.length === prefix.length + max);
  return whole && national.startsWith(prefix)
    ? { v: national.slice(prefix.length), trunk: true }
    : { v: national, trunk: false };
}

/** A national number's E.164 digits under `countryCode`, or undefined when it cannot be told (see e164Digits). */
function withCountryCode(national: string, countryCode: string): string | undefined {
  const { v, trunk } = withoutTrunk(national, countryCode);
  const max = NATIONAL_MAX_DIGITS[countryCode];
  if (max === undefined) {
    // No length known: a number that starts with the code may carry it or not; a guess would
    // match another person. A trunk prefix written before it says it is national.
    return v.startsWith(countryCode) && !trunk ? undefined : countryCode + v;
  }
  if (v.length <= max) {
    return countryCode + v;
  }
  return v.startsWith(countryCode) && v.length - countryCode.length <= max ? v : undefined;
}

/**
 * The phone's E.164 digits (country code first, no '+'), or undefined when it has no usable form.
 * A number written with '+' or the international prefix 00 carries its country code (a "(0)"
 * after it is dropped: '+44 (0)20 7946 0958' → 442079460958, and so is a trunk prefix typed
 * after a code of known length: '+44 020 7946 0958' → 442079460958); any other takes `countryCode` after
 * dropping one national trunk prefix: 0 ('09876 543210' + 91 → 919876543210), 8 for 7 ('8 912
 * 345-67-89' + 7 → 79123456789), none where the 0 is part of the number (Italy: '06 1234 5678' +
 * 39 → 390612345678). Where the country's longest national number is known, a longer number that
 * starts with the code already carries it ('919876543210' + 91) and any other longer one is
 * unusable; elsewhere a number that starts with the code without a trunk prefix before it is
 * unusable ('4915123456789' + 49: it may carry the code or not). Without a country code a
 * national number is unusable too: guessing one would match other people.
 */
export function e164Digits(raw: string | null, countryCode: string | null): string | undefined {
  const v = withoutTrunkAfterCode((raw ?? '').trim()).replace(PHONE_SEPARATORS, '');
  let digits: string;
  if (v.startsWith('+')) {
    digits = withoutTypedTrunk(v.slice(1));
  } else if (v.startsWith('00')) {
    digits = withoutTypedTrunk(v.slice(2));
  } else if (countryCode !== null && /^\d+$/.test(v)) {
    const national = withCountryCode(v, countryCode);
    if (national === undefined) {
      return undefined;
    }
    digits = national;
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
