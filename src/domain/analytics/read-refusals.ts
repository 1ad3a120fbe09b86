// Which users of a batch a vendor refused, when its answer names them (by their place in the
// request), and what became of the others, as each vendor documents it:
// - Braze /users/track: `errors: [{type, input_array: "attributes", index}]`. In a 2xx ("success"
//   with minor errors) every object not named was processed; in a 4xx other than 401/403 (a fatal
//   error) nothing was, so the others go again.
// - Mixpanel /engage?strict=1: `failed_records: [{index, message}]` (in a 200 or a 400); the
//   records that passed validation were ingested.
// - Amplitude /identify (its HTTP V2 error body): a 400 with `events_with_invalid_fields`,
//   `events_with_missing_fields`, `events_with_invalid_id_lengths` ({field: [index]}) or
//   `silenced_events` ([index]); nothing was ingested, and its SDKs drop those and send the rest
//   again. A 400 for a missing field or `Invalid API key` refuses the whole request.
// - PostHog /batch/ answers a bad batch with one 400 naming no event: the whole batch stays dead.
// - CleverTap /1/upload: `unprocessed: [{status: "fail", code, error, record}]`, each echoing the
//   record it refused, named here by its objectId or identity (the first sent record with that id
//   not named yet). The others were processed (`sent`; in a 400, only when `processed` counts them
//   all, else they go again: a repeated profile update changes nothing). Code 555, "Miscellaneous server error", is CleverTap's own
//   failure: that record is `failed`, tried again later as a 5xx would be.
// Anything else (no names, names out of range, unreadable JSON) leaves the status to decide.
import type { AnalyticsVendor } from '../../store/postgres/analytics-connections.ts';

/**
 * Refused users by their index in the request (with the vendor's reason); `failed`: those the vendor
 * could not process on its side (retried with backoff); `rest`: the others.
 */
export type Refusals = { refused: Map<number, string>; failed?: Map<number, string>; rest: 'sent' | 'resend' };

type Json = Record<string, unknown>;

function parseObject(body: string): Json | undefined {
  try {
    const v: unknown = JSON.parse(body);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
  } catch {
    return undefined;
  }
}

const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown, fallback: string): string => (typeof v === 'string' && v !== '' ? v : fallback);

function add(out: Map<number, string>, index: unknown, reason: string, count: number): void {
  if (typeof index === 'number' && Number.isInteger(index) && index >= 0 && index < count && !out.has(index)) {
    out.set(index, reason);
  }
}

function braze(status: number, a: Json, count: number): Refusals | undefined {
  const out = new Map<number, string>();
  for (const e of asArray(a.errors)) {
    const err = (e ?? {}) as Json;
    if (err.input_array === 'attributes') {
      add(out, err.index, `Braze refused this user: ${text(err.type, 'invalid attributes object')}`, count);
    }
  }
  return out.size > 0 ? { refused: out, rest: status < 300 ? 'sent' : 'resend' } : undefined;
}

function mixpanel(a: Json, count: number): Refusals | undefined {
  const out = new Map<number, string>();
  for (const r of asArray(a.failed_records)) {
    const rec = (r ?? {}) as Json;
    add(out, rec.index, `Mixpanel refused this user: ${text(rec.message, text(a.error, 'failed validation'))}`, count);
  }
  return out.size > 0 ? { refused: out, rest: 'sent' } : undefined;
}

function amplitude(a: Json, count: number): Refusals | undefined {
  const error = text(a.error, 'invalid identification');
  if (a.missing_field !== undefined || error.startsWith('Invalid API key')) {
    return undefined;
  }
  const out = new Map<number, string>();
  for (const group of ['events_with_invalid_fields', 'events_with_missing_fields', 'events_with_invalid_id_lengths']) {
    const byField = a[group];
    if (typeof byField === 'object' && byField !== null) {
      for (const [field, indices] of Object.entries(byField as Json)) {
        for (const i of asArray(indices)) {
          add(out, i, `Amplitude refused this user: ${error} (${field})`, count);
        }
      }
    }
  }
  for (const i of asArray(a.silenced_events)) {
    add(out, i, `Amplitude refused this user: ${error} (silenced)`, count);
  }
  return out.size > 0 ? { refused: out, rest: 'resend' } : undefined;
}

const CLEVERTAP_SERVER_ERROR = 555;

/** Each unprocessed record's index among the sent ones (`ids`: each record's objectId | identity). */
function clevertap(status: number, a: Json, ids: Record<string, string>[]): Refusals | undefined {
  const refused = new Map<number, string>();
  const failed = new Map<number, string>();
  for (const u of asArray(a.unprocessed)) {
    const entry = (u ?? {}) as Json;
    const record = (entry.record ?? {}) as Json;
    const key = record.objectId === undefined ? 'identity' : 'objectId';
    const id = record[key] === undefined ? undefined : String(record[key]);
    const index = id === undefined ? -1 : ids.findIndex((x, i) => x[key] === id && !refused.has(i) && !failed.has(i));
    if (index < 0) {
      return undefined; // a record we cannot name: refusedIn2xx decides for the batch
    }
    const reason = `${text(entry.error, 'refused')} (code ${String(entry.code)})`;
    if (entry.code === CLEVERTAP_SERVER_ERROR) {
      failed.set(index, `CleverTap could not process this user: ${reason}`);
    } else {
      refused.set(index, `CleverTap refused this user: ${reason}`);
    }
  }
  if (refused.size + failed.size === 0) {
    return undefined;
  }
  const others = ids.length - refused.size - failed.size;
  if (status < 300 || a.processed === others) {
    return { refused, failed, rest: 'sent' };
  }
  // A 400 that took in some of the others (or says nothing): they go again; a profile update
  // only sets properties, so one CleverTap took already changes nothing.
  return { refused, failed, rest: 'resend' };
}

/**
 * The refusals a vendor's answer names, for a request of `count` users (`ids`: their ids as sent,
 * which CleverTap's answer names them by); else undefined.
 */
export function readRefusals(
  vendor: AnalyticsVendor,
  status: number,
  body: string,
  count: number,
  ids: Record<string, string>[] = [],
): Refusals | undefined {
  const wholeBatch = status === 401 || status === 403 || status === 408 || status === 429 || status >= 500;
  const a = status < 200 || wholeBatch ? undefined : parseObject(body);
  if (!a) {
    return undefined;
  }
  switch (vendor) {
    case 'braze':
      return braze(status, a, count);
    case 'mixpanel':
      return status < 300 || status === 400 ? mixpanel(a, count) : undefined;
    case 'amplitude':
      return status === 400 ? amplitude(a, count) : undefined;
    case 'clevertap':
      return status < 300 || status === 400 ? clevertap(status, a, ids) : undefined;
    default:
      return undefined;
  }
}
