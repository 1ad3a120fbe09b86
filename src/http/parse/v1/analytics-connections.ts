// Body of PUT /api/v1/connections/{braze,mixpanel,amplitude,posthog,ga4,clevertap}: the vendor's key
// under its own name (Braze api_key, Mixpanel project_token, Amplitude api_key, PostHog
// project_api_key, GA4 api_secret, CleverTap passcode), where requests go (Braze rest_endpoint,
// required; Mixpanel / Amplitude / GA4 / CleverTap region; PostHog host: us, eu or a self-hosted
// https URL; default us, CleverTap eu1), the account (GA4 firebase_app_id, CleverTap account_id:
// required) and active. The rules are the domain's (checkAnalyticsConnection), so the CLI and the
// API refuse the same input.
import {
  type AnalyticsConnectionInput,
  checkAnalyticsConnection,
} from '../../../domain/analytics/set-analytics-connection.ts';
import { FIELDS } from '../../../domain/analytics/vendors.ts';
import type { AnalyticsVendor } from '../../../store/postgres/analytics-connections.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { asRecord } from '../common.ts';

export function parseAnalyticsConnection(vendor: AnalyticsVendor, body: unknown): AnalyticsConnectionInput {
  const b = asRecord(body);
  const f = FIELDS[vendor];
  const key = b[f.key];
  const endpoint = b[f.endpoint];
  if (typeof key !== 'string') {
    throw new ApiError(400, MSG.connectionInvalid(`${f.key} is a required string`));
  }
  if (typeof b.active !== 'boolean') {
    throw new ApiError(400, MSG.connectionInvalid('active must be a boolean'));
  }
  if (endpoint !== undefined && endpoint !== null && typeof endpoint !== 'string') {
    throw new ApiError(400, MSG.connectionInvalid(`${f.endpoint} must be a string`));
  }
  if (vendor === 'braze' && typeof endpoint !== 'string') {
    throw new ApiError(400, MSG.connectionInvalid(`${f.endpoint} is a required string`));
  }
  const account = f.account === undefined ? undefined : b[f.account];
  if (f.account && typeof account !== 'string') {
    throw new ApiError(400, MSG.connectionInvalid(`${f.account} is a required string`));
  }
  const accountId = typeof account === 'string' ? account.trim() : null;
  const input = { vendor, key: key.trim(), endpoint: endpoint ?? null, accountId, active: b.active };
  const checked = checkAnalyticsConnection(input);
  if ('problem' in checked) {
    throw new ApiError(400, MSG.connectionInvalid(checked.problem));
  }
  return input;
}
