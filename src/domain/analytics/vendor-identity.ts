// Which profile in the vendor a user's attribution goes to, from the user id and the ids the app
// sent in user_data (api-spec: mixpanel_distinct_id, amplitude_device_id, posthog_distinct_id,
// braze_device_id, all strings):
// - Braze: braze_device_id as braze_id when the app sent one (Braze's page: the changeUser id is the
//   user id passed to signup, else braze_device_id), else the user id as external_id.
// - Mixpanel: mixpanel_distinct_id, else the user id, as $distinct_id.
// - Amplitude: amplitude_device_id as device_id and the user id as user_id. Amplitude refuses ids
//   shorter than 5 characters (its default minimum), so a shorter one is left out; a user with
//   neither id usable is not sent.
// - PostHog: posthog_distinct_id, else the user id, as distinct_id.
// - GA4: ga_app_instance_id as app_instance_id, only when it is the Firebase SDK's id (32 hex
//   digits; the Measurement Protocol refuses anything else); a user without one is not sent.
// - CleverTap: the clevertap_id the app stored on the registering install's integration_info
//   (/api/client/integrations; real-clients §4.9) as objectId: the profile CleverTap's SDK made for
//   that device, whatever identity the app gave it. Else the user id as identity: the profile of an
//   app that calls onUserLogin with our user id (CleverTap makes a new profile for an identity it
//   does not know, as Braze does for an external_id).
// The delivery's key is the user and the ids sent, so a repeat trigger (or set-user-data) with the
// same ids queues nothing, and a new id queues one more delivery.
import type { AnalyticsVendor } from '../../store/postgres/analytics-connections.ts';

export type VendorIdentity = { ids: Record<string, string>; key: string };

const ID_MAX = 1024;
const AMPLITUDE_MIN_ID = 5;
const CONTROL = /\p{Cc}/u;
const GA_APP_INSTANCE_ID = /^[0-9a-f]{32}$/i;

/** The user_data field as an id: a non-blank string without control characters, trimmed. */
function idOf(userData: Record<string, unknown>, field: string): string | undefined {
  const v = userData[field];
  if (typeof v !== 'string') {
    return undefined;
  }
  const t = v.trim();
  return t !== '' && t.length <= ID_MAX && !CONTROL.test(t) ? t : undefined;
}

function idsFor(
  vendor: AnalyticsVendor,
  userId: string,
  userData: Record<string, unknown>,
  integrationInfo: Record<string, unknown>,
): Record<string, string> {
  switch (vendor) {
    case 'clevertap': {
      const objectId = idOf(integrationInfo, 'clevertap_id');
      return objectId ? { objectId } : { identity: userId };
    }
    case 'braze': {
      const brazeId = idOf(userData, 'braze_device_id');
      return brazeId ? { braze_id: brazeId } : { external_id: userId };
    }
    case 'mixpanel':
      return { distinct_id: idOf(userData, 'mixpanel_distinct_id') ?? userId };
    case 'posthog':
      return { distinct_id: idOf(userData, 'posthog_distinct_id') ?? userId };
    case 'ga4': {
      const instance = idOf(userData, 'ga_app_instance_id');
      return instance && GA_APP_INSTANCE_ID.test(instance) ? { app_instance_id: instance } : {};
    }
    case 'amplitude': {
      const out: Record<string, string> = {};
      const deviceId = idOf(userData, 'amplitude_device_id');
      if (userId.length >= AMPLITUDE_MIN_ID) {
        out.user_id = userId;
      }
      if (deviceId && deviceId.length >= AMPLITUDE_MIN_ID) {
        out.device_id = deviceId;
      }
      return out;
    }
  }
}

/** undefined when the user cannot be named in the vendor (Amplitude: no id of 5 characters; GA4: none). */
export function vendorIdentity(
  vendor: AnalyticsVendor,
  userId: string,
  userData: Record<string, unknown>,
  integrationInfo: Record<string, unknown> = {},
): VendorIdentity | undefined {
  const ids = idsFor(vendor, userId, userData, integrationInfo);
  if (Object.keys(ids).length === 0) {
    return undefined;
  }
  return { ids, key: JSON.stringify([userId, ids]) };
}
