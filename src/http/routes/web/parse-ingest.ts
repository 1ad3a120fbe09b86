// The Web SDK's event body (real-clients §7; @linkrunner/web src/core.js buildPayload): flat JSON
// of text and numbers. Read tolerantly, as the SDKs' bodies are: a field may be absent or null
// ('' / 0), a number may come as its text, text may come as a number or boolean, too-long text is
// cut at its cap and numbers are clamped (±Infinity too); user_id is trimmed. Only a field of the
// wrong kind (an object where text or a number belongs) and a missing event_type are refused, with
// a 400 naming the field. Fields we do not know are ignored.
import {
  WEB_ATTRIBUTION_FIELDS,
  WEB_ATTRIBUTION_MAX,
  WEB_NUMBER_FIELDS,
  WEB_TEXT_FIELDS,
  type WebEventInput,
} from '../../../domain/web/web-event.ts';
import { cutChars, storable } from '../../../lib/storable.ts';
import { charLength } from '../../../lib/validate.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { type ClientBody, capObject } from '../../parse/client/common.ts';
import { optionalId } from '../../parse/client/ids.ts';
import { asRecord } from '../../parse/common.ts';

const MAX_EVENT_TYPE = 64;
const MAX_EVENT_ID = 128;
/** Years 0000-9999: what ClickHouse's DateTime64 and formatChTime take. */
const MAX_TIME_MS = 253_402_300_799_999;

function readText(b: ClientBody, key: string, max: number): string {
  const v = b[key];
  if (v === undefined || v === null) {
    return '';
  }
  if (typeof v === 'number' || typeof v === 'boolean') {
    return String(v);
  }
  // event_data is a JSON string from the SDK; a proxy that sends the object keeps it, as its text.
  const text = typeof v === 'string' ? v : key === 'event_data' ? JSON.stringify(capObject(v)) : undefined;
  if (text === undefined) {
    throw new ApiError(400, MSG.fieldMustBeString(key));
  }
  return storable(cutChars(text, max));
}

function readNumber(b: ClientBody, key: string, rule: { min: number; max: number; integer: boolean }): number {
  const v = b[key];
  if (v === undefined || v === null || v === '') {
    return 0;
  }
  const n = typeof v === 'number' ? v : typeof v === 'boolean' ? Number(v) : typeof v === 'string' ? Number(v) : NaN;
  // A number past the double range (1e400, as JSON or text) reads as ±Infinity: out of range, so
  // clamped like 1e12 is; only what is no number at all is refused.
  if (Number.isNaN(n)) {
    throw new ApiError(400, MSG.webFieldMustBeNumber(key));
  }
  const clamped = Math.min(rule.max, Math.max(rule.min, n));
  return rule.integer ? Math.round(clamped) : clamped;
}

/** user_id (lr.identify), trimmed as the app SDKs' ids are (ids.ts optionalUserId): the same user matches. */
function readUserId(b: ClientBody): string {
  const v = b.user_id;
  return readText({ user_id: typeof v === 'string' ? v.trim() : v }, 'user_id', WEB_TEXT_FIELDS.user_id);
}

function readEventType(v: unknown): string {
  const type = typeof v === 'string' ? storable(v.trim()) : '';
  if (type === '' || charLength(type) > MAX_EVENT_TYPE) {
    throw new ApiError(400, MSG.webEventTypeInvalid);
  }
  return type;
}

/** client_timestamp (the SDK's toISOString(), or epoch ms): null when absent or not a time. */
function readClientTime(v: unknown): number | null {
  if (v === undefined || v === null || v === '') {
    return null;
  }
  if (typeof v !== 'string' && typeof v !== 'number') {
    throw new ApiError(400, MSG.fieldMustBeString('client_timestamp'));
  }
  const ms = typeof v === 'number' ? v : Date.parse(v);
  return Number.isFinite(ms) && ms >= 0 && ms <= MAX_TIME_MS ? Math.floor(ms) : null;
}

export function parseWebEvent(body: unknown): WebEventInput {
  const b = asRecord(body);
  const eventType = readEventType(b.event_type);
  const eventId = optionalId(b, 'event_id', MAX_EVENT_ID, MSG.eventIdInvalid);
  const text: Record<string, string> = {};
  for (const [key, max] of Object.entries(WEB_TEXT_FIELDS)) {
    text[key] = key === 'user_id' ? readUserId(b) : readText(b, key, max);
  }
  for (const key of WEB_ATTRIBUTION_FIELDS) {
    text[key] = readText(b, key, WEB_ATTRIBUTION_MAX);
  }
  const numbers: Record<string, number> = {};
  for (const [key, rule] of Object.entries(WEB_NUMBER_FIELDS)) {
    numbers[key] = readNumber(b, key, rule);
  }
  return { eventId, eventType, clientTsMs: readClientTime(b.client_timestamp), text, numbers };
}
