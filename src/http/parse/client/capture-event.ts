// capture-event body (spec; real-clients §4.5): event_name as sent (not trimmed, not normalised),
// event_data an object or null (iOS sends null; capped like device_data), the optional event_id
// (idempotency key) and user_id (iOS 4.x). device_data and time_since_app_install are ignored.
import type { CaptureEventInput } from '../../../domain/events/capture-event.ts';
import { charLength } from '../../../lib/validate.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { asRecord } from '../common.ts';
import { type ClientBody, capObject, readInstallId, readPlatform, storable } from './common.ts';
import { optionalId, optionalUserId } from './ids.ts';

const MAX_EVENT_NAME = 255;
const MAX_EVENT_ID = 128;

function readEventName(v: unknown): string {
  const name = typeof v === 'string' ? storable(v) : '';
  if (name.trim() === '' || charLength(name) > MAX_EVENT_NAME) {
    throw new ApiError(400, MSG.eventNameInvalid);
  }
  return name;
}

function readEventData(v: unknown): Record<string, unknown> | null {
  if (v === undefined || v === null) {
    return null;
  }
  if (typeof v !== 'object' || Array.isArray(v)) {
    throw new ApiError(400, MSG.fieldMustBeObject('event_data'));
  }
  return capObject(v) as Record<string, unknown>;
}

export type EventFields = Pick<CaptureEventInput, 'eventName' | 'eventData' | 'eventId'>;

/** The event itself, shared with the server-side twin POST /api/v1/capture-event. */
export function readEventFields(b: ClientBody): EventFields {
  return {
    eventName: readEventName(b.event_name),
    eventData: readEventData(b.event_data),
    eventId: optionalId(b, 'event_id', MAX_EVENT_ID, MSG.eventIdInvalid),
  };
}

export function parseCaptureEvent(body: unknown): CaptureEventInput {
  const b = asRecord(body);
  const installInstanceId = readInstallId(b);
  return { installInstanceId, platform: readPlatform(b), ...readEventFields(b), userId: optionalUserId(b) };
}
