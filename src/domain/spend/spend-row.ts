// A spend row as its sources give it, and its validation. The shape is the public wire format shared
// by the spend endpoint's body, the CSV import's columns and network pullers (snake_case, as in the
// API), so it is read in one place with one set of reasons. A bad row is rejected with a reason;
// the rest of its batch still goes through.
import { decimalFromNumber, MAX_AMOUNT, withinMaxAmount } from '../../lib/money.ts';
import { storable } from '../../lib/storable.ts';
import { charLength } from '../../lib/validate.ts';
import { normalizeNetworkCode } from '../campaigns/campaign.ts';

/** One spend row before validation (PUT /api/v1/spend `rows[]`, a CSV line, a puller's row). */
export type SpendRowInput = {
  day: string;
  campaign_display_id: string;
  ad_set_id?: string;
  ad_set_name?: string;
  creative_id?: string;
  creative_name?: string;
  keyword_id?: string;
  keyword_name?: string;
  network?: string;
  /** Decimal string or JSON number, 0 to 1e20, at most 9 decimals, in the project's currency. */
  amount: string | number;
  impressions?: string | number;
  clicks?: string | number;
};

/** A valid row; names are undefined when absent or empty (the stored name is kept). */
export type SpendRow = {
  day: string;
  displayId: string;
  adSetId: string;
  adSetName: string | undefined;
  creativeId: string;
  creativeName: string | undefined;
  keywordId: string;
  keywordName: string | undefined;
  /** Normalised code; undefined when absent (the campaign's network is used). */
  network: string | undefined;
  amount: string;
  impressions: number;
  clicks: number;
};

/** A row's fields: a row naming any other is rejected (a `currency` would otherwise be ignored). */
export const SPEND_ROW_FIELDS = [
  'day',
  'campaign_display_id',
  'ad_set_id',
  'ad_set_name',
  'creative_id',
  'creative_name',
  'keyword_id',
  'keyword_name',
  'network',
  'amount',
  'impressions',
  'clicks',
] as const;
const KNOWN_FIELDS: ReadonlySet<string> = new Set(SPEND_ROW_FIELDS);

export const MAX_SPEND_ROWS = 10_000;
/**
 * The most impressions or clicks one row may report: far above what a network reports for one ad
 * set and day, and low enough that v_campaign_daily's Int64 sums over a campaign's rows of a day
 * cannot wrap (2^53 a row wrapped past 1,024 rows; 1e12 a row needs 9.2 million).
 */
export const MAX_SPEND_COUNT = 1e12;
const ID_MAX = 256;
const NAME_MAX = 500;
// ClickHouse Date covers 1970-01-01 to 2149-06-06.
const FIRST_DAY = '1970-01-01';
const LAST_DAY = '2149-06-06';

export const SPEND_REASON = {
  notObject: 'row must be an object',
  day: 'day must be a date YYYY-MM-DD',
  displayId: `campaign_display_id must be a non-empty string of at most ${ID_MAX} characters`,
  // Cut by characters: a cut inside an emoji would answer a lone surrogate.
  campaignNotFound: (id: string) => `campaign '${Array.from(id).slice(0, 100).join('')}' not found in this project`,
  id: (field: string) => `${field} must be a string of at most ${ID_MAX} characters`,
  name: (field: string) => `${field} must be a string of at most ${NAME_MAX} characters`,
  network: 'network must be a code of letters, digits, spaces or underscores (at most 64)',
  amount: 'amount must be a number or decimal string from 0 to 1e20 with at most 9 decimals',
  count: (field: string) => `${field} must be a whole number from 0 to 1e12`,
  // Names cut like campaignNotFound's id; at most five are listed.
  unknownFields: (names: string[]) =>
    `unknown field(s) ${names
      .slice(0, 5)
      .map((n) => `'${Array.from(n).slice(0, 100).join('')}'`)
      .join(', ')}${names.length > 5 ? ', …' : ''}: a row takes ${SPEND_ROW_FIELDS.join(', ')}`,
  duplicate: (later: string) => `superseded by ${later} (same day, campaign, ad set, creative, keyword and network)`,
} as const;

class RowError extends Error {}

function isCalendarDay(v: unknown): v is string {
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v) || v < FIRST_DAY || v > LAST_DAY) {
    return false;
  }
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
}

function text(v: unknown, max: number, reason: string): string {
  if (v === undefined || v === null) {
    return '';
  }
  if (typeof v !== 'string' || charLength(v) > max || v.includes('\0')) {
    throw new RowError(reason);
  }
  // As client text is (lib/storable.ts): Postgres would store a lone surrogate as U+FFFD while the
  // fact kept its JSON escape, which ClickHouse refuses; both must see the same value.
  return storable(v.trim());
}

/**
 * The amount as a canonical decimal string ('12.5'), or undefined: a JSON number (its shortest
 * text, as JavaScript prints it) or a decimal string, 0 to 1e20, at most 9 decimals, no rounding.
 */
export function spendAmount(v: unknown): string | undefined {
  if (typeof v === 'number') {
    const d = Number.isFinite(v) && v >= 0 && v <= MAX_AMOUNT ? decimalFromNumber(v) : undefined;
    return d !== undefined && Number(d) === v ? d : undefined;
  }
  const m = typeof v === 'string' ? /^(\d{1,29})(?:\.(\d{1,9}))?$/.exec(v.trim()) : null;
  if (!m || !withinMaxAmount(m[1] ?? '', m[2] ?? '')) {
    return undefined;
  }
  const whole = (m[1] ?? '0').replace(/^0+(?=\d)/, '');
  const fraction = (m[2] ?? '').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

function amount(v: unknown): string {
  const a = spendAmount(v);
  if (a === undefined) {
    throw new RowError(SPEND_REASON.amount);
  }
  return a;
}

function count(v: unknown, field: string): number {
  if (v === undefined || v === null || v === '') {
    return 0;
  }
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 0 || n > MAX_SPEND_COUNT) {
    throw new RowError(SPEND_REASON.count(field));
  }
  return n;
}

function network(v: unknown): string | undefined {
  const raw = text(v, 64, SPEND_REASON.network);
  if (raw === '') {
    return undefined;
  }
  if (!/^[A-Za-z0-9_ ]{1,64}$/.test(raw)) {
    throw new RowError(SPEND_REASON.network);
  }
  return normalizeNetworkCode(raw);
}

function read(raw: unknown): SpendRow {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new RowError(SPEND_REASON.notObject);
  }
  const r = raw as Record<string, unknown>;
  const unknown = Object.keys(r).filter((k) => !KNOWN_FIELDS.has(k));
  if (unknown.length > 0) {
    throw new RowError(SPEND_REASON.unknownFields(unknown));
  }
  // Trimmed as every other text cell is (a CSV written with ', ' separators).
  const day = typeof r.day === 'string' ? r.day.trim() : r.day;
  if (!isCalendarDay(day)) {
    throw new RowError(SPEND_REASON.day);
  }
  const displayId = text(r.campaign_display_id, ID_MAX, SPEND_REASON.displayId);
  if (displayId === '') {
    throw new RowError(SPEND_REASON.displayId);
  }
  const name = (field: string) => text(r[field], NAME_MAX, SPEND_REASON.name(field)) || undefined;
  return {
    day,
    displayId,
    adSetId: text(r.ad_set_id, ID_MAX, SPEND_REASON.id('ad_set_id')),
    adSetName: name('ad_set_name'),
    creativeId: text(r.creative_id, ID_MAX, SPEND_REASON.id('creative_id')),
    creativeName: name('creative_name'),
    keywordId: text(r.keyword_id, ID_MAX, SPEND_REASON.id('keyword_id')),
    keywordName: name('keyword_name'),
    network: network(r.network),
    amount: amount(r.amount),
    impressions: count(r.impressions, 'impressions'),
    clicks: count(r.clicks, 'clicks'),
  };
}

/** The valid row, or the reason it is rejected. */
export function readSpendRow(raw: unknown): SpendRow | { reason: string } {
  try {
    return read(raw);
  } catch (err) {
    if (err instanceof RowError) {
      return { reason: err.message };
    }
    throw err;
  }
}
