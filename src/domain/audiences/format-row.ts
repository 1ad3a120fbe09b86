// One CSV line per user, in the upload format asked for (header rows as the platforms name them):
// - meta: `email,phone,madid`, Meta's customer-list columns (email and phone SHA-256, the mobile
//   advertiser id as is);
// - google: `Email,Phone`, Google Customer Match contact columns (SHA-256; the phone's E.164 text);
// - google_device_ids: `Mobile Device ID`, Customer Match's mobile-id list (Google takes device ids
//   as a list of their own, never beside contact data);
// - plain: `user_id,email_sha256,phone_sha256,madid` (the phone hashed as Google hashes it).
// A user with none of the format's identifiers gives no line (counted as skipped).
import type { AudienceFormat } from './audience-input.ts';
import { hashEmail, hashPhone, mobileAdId } from './normalize-identifiers.ts';

export type AudienceIdentity = { userId: string; email: string | null; phone: string | null; adId: string | null };

const HEADERS: Record<AudienceFormat, string[]> = {
  meta: ['email', 'phone', 'madid'],
  google: ['Email', 'Phone'],
  google_device_ids: ['Mobile Device ID'],
  plain: ['user_id', 'email_sha256', 'phone_sha256', 'madid'],
};

/**
 * A CSV field (RFC 4180 quoting). Only the plain format's user id can need it: it is the app's text.
 * A spreadsheet reads a cell starting with = + - @ (or a tab or CR) as a formula, so such an id gets
 * a leading apostrophe, which spreadsheets show as text (OWASP "CSV injection").
 */
export function csvField(v: string): string {
  const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\r\n]|^\s|\s$/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function audienceHeader(format: AudienceFormat): string {
  return `${HEADERS[format].join(',')}\n`;
}

/** The user's line with its newline, or undefined when the format has no identifier of the user. */
export function audienceLine(
  format: AudienceFormat,
  u: AudienceIdentity,
  countryCode: string | null,
): string | undefined {
  const email = hashEmail(u.email);
  const phone = hashPhone(u.phone, countryCode);
  const madid = mobileAdId(u.adId);
  let cells: (string | undefined)[];
  switch (format) {
    case 'meta':
      cells = [email, phone?.meta, madid];
      break;
    case 'google':
      cells = [email, phone?.google];
      break;
    case 'google_device_ids':
      cells = [madid];
      break;
    case 'plain':
      cells = [email, phone?.google, madid];
      break;
  }
  if (cells.every((c) => c === undefined)) {
    return undefined;
  }
  const row = cells.map((c) => c ?? '');
  return `${(format === 'plain' ? [csvField(u.userId), ...row] : row).join(',')}\n`;
}
