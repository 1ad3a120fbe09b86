// An audience segment (product notes "Remarketing / reattribution": CSV segment downloads uploaded
// to the ad platform): the registered users of a project who did one action (a custom event, or a
// completed payment of a type or of any type) on the project-local days [from, to], optionally not
// since N days, optionally of one campaign, channel or platform; and the file format to write.
// The HTTP query and the CLI flags both parse into this.

export const AUDIENCE_FORMATS = ['meta', 'google', 'google_device_ids', 'plain'] as const;
export type AudienceFormat = (typeof AUDIENCE_FORMATS)[number];

export const INACTIVE_BY = ['app_open', 'action'] as const;
export type InactiveBy = (typeof INACTIVE_BY)[number];

export const INACTIVE_DAYS_MAX = 3650;
/** capture-event refuses longer names, so a longer one can never match. */
export const AUDIENCE_EVENT_MAX_CHARS = 255;

/**
 * A custom event by its name as trimmed (stored names are matched trimmed too: capture-event keeps
 * them as sent), or completed payments of one type (null: any type that is a purchase).
 */
export type AudienceAction = { kind: 'event'; name: string } | { kind: 'payment'; type: string | null };

export type AudienceInput = {
  action: AudienceAction;
  /** Inclusive project-local days, 'YYYY-MM-DD'. */
  from: string;
  to: string;
  /** Only users without an app open (or without the action) in the last N × 24 hours. */
  inactive: { days: number; by: InactiveBy } | null;
  /** A campaign display id of the project: facts attributed to it. */
  campaign: string | null;
  /** A network code (normalised: META, GOOGLE, TIKTOK, …), or ORGANIC for unattributed facts. */
  channel: string | null;
  platform: 'IOS' | 'ANDROID' | null;
  format: AudienceFormat;
  /** Calling code for phones stored without one ('91'); without it such phones are unusable. */
  phoneCountryCode: string | null;
};

/** What an export wrote: data rows, and the segment's users left out for want of an identifier. */
export type AudienceTally = { rows: number; skipped: number };
