// The users of an audience segment, read from the raw facts page by page: distinct user ids, in
// order, after the last id of the previous page (keyset paging, so no page holds more than `limit`
// ids and no statement holds the whole segment). A custom event is an `events` row whose name,
// trimmed, is the one asked (capture-event stores names as sent, "purchase " included, and the
// parser trims the name asked); a payment is a completed `payments` capture not netted out by its
// removal (sum(sign) over its payment_row), of the type asked or of any type but `notTypes`. The
// window is the facts' project-local `day`; the `ts` bounds (a day wider on each side than any
// zone moves a day) only let ClickHouse skip partitions and granules. Bound parameters only.
import { type ClickHouseClient, REPORT_READ_CLAUSE } from './client.ts';

export type SegmentPageQuery = {
  projectId: string;
  /** events: `name` is the trimmed event name; payments: `name` is a payment type, or null for any. */
  source: 'events' | 'payments';
  name: string | null;
  /** payments of any type (`name` null): types left out. */
  notTypes: readonly string[];
  from: string;
  to: string;
  /** ClickHouse DateTime64(3) text (UTC), bounds of ts for pruning: [tsFrom, tsTo). */
  tsFrom: string;
  tsTo: string;
  campaignId: number | null;
  network: string | null;
  platform: string | null;
  /** Leave out users who did the action (anywhere) at or after this time. */
  notSince: string | null;
  after: string;
  limit: number;
};

/**
 * Leading and trailing whitespace as JavaScript's String.prototype.trim sees it (tab to CR, the
 * Unicode separators, U+FEFF), in RE2 syntax: the stored name is trimmed as the parser trims the
 * name asked. A bound parameter, so no escaping of the pattern in SQL text.
 */
const TRIM_PATTERN = '^[\\t-\\r\\p{Z}\\x{FEFF}]+|[\\t-\\r\\p{Z}\\x{FEFF}]+$';

/** The action's rows of the project, by name or type; `window` adds the segment's days and filters. */
function actionRows(q: SegmentPageQuery, window: boolean): string {
  const parts = ['project_id = {p:String}', 'user_id > {after:String}'];
  if (q.source === 'events') {
    // position() first: a cheap test that spares the regex most rows (and is short-circuited).
    parts.push(
      "position(event_name, {name:String}) > 0 AND replaceRegexpAll(event_name, {trim:String}, '') = {name:String}",
    );
  } else {
    parts.push("status = 'PAYMENT_COMPLETED'");
    if (q.name !== null) {
      parts.push('type = {name:String}');
    } else if (q.notTypes.length > 0) {
      parts.push('type NOT IN {not_types:Array(String)}');
    }
  }
  if (window) {
    parts.push('ts >= {ts_from:DateTime64(3)} AND ts < {ts_to:DateTime64(3)}');
    parts.push('day BETWEEN {from:Date} AND {to:Date}');
    if (q.campaignId !== null) {
      parts.push('campaign_id = {campaign:UInt32}');
    }
    if (q.network !== null) {
      parts.push('network = {network:String}');
    }
    if (q.platform !== null) {
      parts.push('platform = {platform:String}');
    }
  } else {
    parts.push('ts >= {since:DateTime64(3)}');
  }
  const where = parts.join(' AND ');
  return q.source === 'events'
    ? `SELECT user_id FROM events WHERE ${where}`
    : `SELECT user_id FROM payments WHERE ${where} GROUP BY user_id, payment_row HAVING sum(sign) > 0`;
}

/** Up to `limit` user ids of the segment, after `after`, in byte order. */
export async function findSegmentUserIds(ch: ClickHouseClient, q: SegmentPageQuery): Promise<string[]> {
  const recent = q.notSince === null ? '' : `WHERE user_id NOT IN (${actionRows(q, false)})`;
  const query = `SELECT user_id FROM (${actionRows(q, true)}) ${recent}
    GROUP BY user_id ORDER BY user_id LIMIT {limit:UInt32} ${REPORT_READ_CLAUSE}`;
  const rs = await ch.query({
    query,
    format: 'JSONEachRow',
    query_params: {
      p: q.projectId,
      name: q.name ?? '',
      trim: TRIM_PATTERN,
      not_types: q.notTypes,
      from: q.from,
      to: q.to,
      ts_from: q.tsFrom,
      ts_to: q.tsTo,
      campaign: q.campaignId ?? 0,
      network: q.network ?? '',
      platform: q.platform ?? '',
      since: q.notSince ?? q.tsFrom,
      after: q.after,
      limit: q.limit,
    },
  });
  return (await rs.json<{ user_id: string }>()).map((r) => r.user_id);
}
