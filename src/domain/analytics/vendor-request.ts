// One request of a vendor's public ingestion API carrying a batch of users' attribution:
// - Braze: POST {rest_endpoint}/users/track, `Authorization: Bearer <REST API key>` (users.track),
//   {"attributes": [{external_id | braze_id, attribution_…}]} (at most 75 objects).
// - Mixpanel: POST {host}/engage?verbose=1&strict=1, a JSON array of profile updates
//   {$token, $distinct_id, $ip: "0", $ignore_time: true, $set} ($ip "0": not geolocated from our
//   server's address; $ignore_time: "Last Seen" stays the app's). strict=1: records that fail
//   validation are named in `failed_records` (read-refusals.ts); verbose=1: a refusal of the whole
//   request is {"status": 0, "error"} (a 200 even for invalid data).
// - Amplitude: POST {host}/identify, a form: api_key and identification, a JSON array of
//   {user_id?, device_id?, user_properties: {$set}}.
// - PostHog: POST {host}/batch/, {"api_key", "batch": [{event: "$set", distinct_id,
//   properties: {$set}, timestamp}]}.
// - GA4: POST {host}/mp/collect?firebase_app_id&api_secret (Measurement Protocol for apps), one
//   app instance per request: {app_instance_id, user_properties: {name: {value}}, events:
//   [{name: "install_attribution", params: {}}]} (user properties travel with an event). GA4 caps a
//   property's name at 24 characters and its value at 36: the three longer names are shortened
//   (ga4Properties) and values cut. It answers 2xx whatever it does with the data (its validation
//   server, /debug/mp/collect, is for trying a request by hand).
// - CleverTap: POST {region host}/1/upload (Upload User Profiles), headers X-CleverTap-Account-Id
//   and X-CleverTap-Passcode, {"d": [{objectId | identity, type: "profile", ts, profileData}]} (ts:
//   the trigger's time in epoch seconds). CleverTap keeps a value of at most 512 bytes: longer ones
//   are cut. It answers 200 {status, processed, unprocessed: [{status, code, error, record}]} naming
//   the records it refused (read-refusals.ts).
// Every update only sets properties, so a retry that lands twice changes nothing.
import type { AnalyticsVendor } from '../../store/postgres/analytics-connections.ts';
import type { AnalyticsPayload } from './queue-analytics-deliveries.ts';
import { PATHS } from './vendors.ts';

export type VendorRequest = { url: string; body: string; contentType: string; headers: Record<string, string> };
export type VendorRow = { payload: AnalyticsPayload; eventTime: Date };

const JSON_TYPE = 'application/json';

/** The vendor's URL: the stored endpoint, or the operator's ANALYTICS_BASE_URL/<vendor>. */
export const vendorUrl = (vendor: AnalyticsVendor, endpoint: string, override?: string): string =>
  `${override ? `${override}/${vendor}` : endpoint}${PATHS[vendor]}`;

const props = (r: VendorRow): Record<string, string | boolean> => r.payload.properties ?? {};

export const GA4_EVENT = 'install_attribution';
const GA4_NAME_MAX = 24;
const GA4_VALUE_MAX = 36;
const GA4_NAMES: Record<string, string> = {
  attribution_campaign_name: 'attribution_campaign',
  attribution_ad_creative_id: 'attribution_creative_id',
  attribution_attributed_on: 'attribution_attributed',
};

/** The properties as GA4 user properties: names of at most 24 characters, string values of 36. */
export function ga4Properties(p: Record<string, string | boolean>): Record<string, { value: string }> {
  const out: Record<string, { value: string }> = {};
  for (const [name, value] of Object.entries(p)) {
    const short = GA4_NAMES[name] ?? name;
    if (short.length <= GA4_NAME_MAX) {
      out[short] = { value: [...String(value)].slice(0, GA4_VALUE_MAX).join('') };
    }
  }
  return out;
}

function ga4Request(url: string, key: string, firebaseAppId: string, rows: VendorRow[]): VendorRequest {
  const [row] = rows; // one app instance per request (vendors.ts usersPerRequest)
  const query = new URLSearchParams({ firebase_app_id: firebaseAppId, api_secret: key });
  const body = {
    app_instance_id: row?.payload.ids.app_instance_id,
    user_properties: row ? ga4Properties(props(row)) : {},
    events: [{ name: GA4_EVENT, params: {} }],
  };
  return { url: `${url}?${query}`, contentType: JSON_TYPE, headers: {}, body: JSON.stringify(body) };
}

const CLEVERTAP_VALUE_MAX_BYTES = 512;

/** A string cut to at most `max` UTF-8 bytes, never inside a character. */
function cutBytes(value: string, max: number): string {
  if (Buffer.byteLength(value) <= max) {
    return value;
  }
  let out = '';
  let bytes = 0;
  for (const ch of value) {
    bytes += Buffer.byteLength(ch);
    if (bytes > max) {
      break;
    }
    out += ch;
  }
  return out;
}

function clevertapRequest(url: string, passcode: string, accountId: string, rows: VendorRow[]): VendorRequest {
  const d = rows.map((r) => ({
    ...r.payload.ids,
    type: 'profile',
    ts: Math.floor(r.eventTime.getTime() / 1000),
    profileData: Object.fromEntries(
      Object.entries(props(r)).map(([k, v]) => [k, typeof v === 'string' ? cutBytes(v, CLEVERTAP_VALUE_MAX_BYTES) : v]),
    ),
  }));
  return {
    url,
    contentType: 'application/json; charset=utf-8',
    headers: { 'x-clevertap-account-id': accountId, 'x-clevertap-passcode': passcode },
    body: JSON.stringify({ d }),
  };
}

/** `accountId`: GA4's firebase_app_id, CleverTap's account id ('' for the other vendors). */
export function vendorRequest(
  vendor: AnalyticsVendor,
  url: string,
  key: string,
  rows: VendorRow[],
  accountId = '',
): VendorRequest {
  switch (vendor) {
    case 'ga4':
      return ga4Request(url, key, accountId, rows);
    case 'clevertap':
      return clevertapRequest(url, key, accountId, rows);
    case 'braze':
      return {
        url,
        contentType: JSON_TYPE,
        headers: { authorization: `Bearer ${key}` },
        body: JSON.stringify({ attributes: rows.map((r) => ({ ...r.payload.ids, ...props(r) })) }),
      };
    case 'mixpanel': {
      const updates = rows.map((r) => ({
        $token: key,
        $distinct_id: r.payload.ids.distinct_id,
        $ip: '0',
        $ignore_time: true,
        $set: props(r),
      }));
      return { url, contentType: JSON_TYPE, headers: {}, body: JSON.stringify(updates) };
    }
    case 'amplitude': {
      const identification = rows.map((r) => ({ ...r.payload.ids, user_properties: { $set: props(r) } }));
      const form = new URLSearchParams({ api_key: key, identification: JSON.stringify(identification) });
      return { url, contentType: 'application/x-www-form-urlencoded', headers: {}, body: form.toString() };
    }
    case 'posthog': {
      const batch = rows.map((r) => ({
        event: '$set',
        distinct_id: r.payload.ids.distinct_id,
        properties: { $set: props(r) },
        timestamp: r.eventTime.toISOString(),
      }));
      return { url, contentType: JSON_TYPE, headers: {}, body: JSON.stringify({ api_key: key, batch }) };
    }
  }
}

/**
 * CleverTap's 2xx whose records read-refusals.ts could not tell apart ({"status": "fail" |
 * "partial"}, or unprocessed records it did not name): the batch is dead with CleverTap's reason.
 */
function clevertapRefused(body: string): string | undefined {
  let a: unknown;
  try {
    a = JSON.parse(body);
  } catch {
    return undefined; // a 2xx without its JSON answer: the status decides (sent)
  }
  const answer = (typeof a === 'object' && a !== null ? a : {}) as { status?: unknown; unprocessed?: unknown };
  const unprocessed = Array.isArray(answer.unprocessed) ? (answer.unprocessed as { error?: unknown }[]) : [];
  if ((answer.status === undefined || answer.status === 'success') && unprocessed.length === 0) {
    return undefined;
  }
  const reason = unprocessed[0]?.error ?? answer.status;
  return `CleverTap refused the batch: ${String(reason)} (unprocessed: ${unprocessed.length})`;
}

/**
 * Mixpanel answers 200 with {"status": 0, "error": …} for data it refuses: the same data would be
 * refused again, so the batch is dead with Mixpanel's reason; CleverTap alike (clevertapRefused).
 * Other vendors answer by status.
 */
export function refusedIn2xx(vendor: AnalyticsVendor, body: string): string | undefined {
  if (vendor === 'clevertap') {
    return clevertapRefused(body);
  }
  if (vendor !== 'mixpanel') {
    return undefined;
  }
  try {
    const a: unknown = JSON.parse(body);
    const answer = (typeof a === 'object' && a !== null ? a : {}) as { status?: unknown; error?: unknown };
    return a === 1 || answer.status === 1 ? undefined : `Mixpanel refused the batch: ${String(answer.error ?? body)}`;
  } catch {
    return body.trim() === '1' ? undefined : `Mixpanel answered ${body.slice(0, 200)}`;
  }
}
