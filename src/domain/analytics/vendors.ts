// The analytics vendors a project can forward install attribution to, and what differs between
// them in configuration: the regions (or, for Braze, the REST endpoint) their hosts come from, and
// how many users one batch claims (Braze /users/track: 75 attribute objects; Mixpanel /engage:
// 2,000 updates; PostHog /batch and Amplitude /identify: kept small so a batch ends well inside its
// claim lease; GA4's Measurement Protocol names one app instance per request, so its batch of 10
// goes out one request per user, as webhooks do; CleverTap's /1/upload takes up to 1,000 records,
// kept at 100 like PostHog).
import type { AnalyticsVendor } from '../../store/postgres/analytics-connections.ts';

export const ANALYTICS_VENDORS: readonly AnalyticsVendor[] = [
  'braze',
  'mixpanel',
  'amplitude',
  'posthog',
  'ga4',
  'clevertap',
];

export const ANALYTICS_PREFIX = 'analytics:';

export const analyticsDestination = (vendor: AnalyticsVendor): string => `${ANALYTICS_PREFIX}${vendor}`;

export const isAnalyticsVendor = (v: unknown): v is AnalyticsVendor =>
  typeof v === 'string' && (ANALYTICS_VENDORS as readonly string[]).includes(v);

/** The vendor of an 'analytics:<vendor>' destination, else undefined. */
export function analyticsVendorOf(destination: string): AnalyticsVendor | undefined {
  const v = destination.startsWith(ANALYTICS_PREFIX) ? destination.slice(ANALYTICS_PREFIX.length) : undefined;
  return isAnalyticsVendor(v) ? v : undefined;
}

export const BATCH_LIMIT: Record<AnalyticsVendor, number> = {
  braze: 75,
  mixpanel: 1000,
  amplitude: 100,
  posthog: 100,
  ga4: 10,
  clevertap: 100,
};

/** Users per request: all of the batch, but one for GA4 (app_instance_id is the request's). */
export const usersPerRequest = (vendor: AnalyticsVendor): number => (vendor === 'ga4' ? 1 : BATCH_LIMIT[vendor]);

/** Region names and their hosts; Braze has none (its REST endpoint names the cluster). */
export const REGIONS: Record<AnalyticsVendor, Record<string, string>> = {
  braze: {},
  mixpanel: { us: 'https://api.mixpanel.com', eu: 'https://api-eu.mixpanel.com', in: 'https://api-in.mixpanel.com' },
  amplitude: { us: 'https://api2.amplitude.com', eu: 'https://api.eu.amplitude.com' },
  posthog: { us: 'https://us.i.posthog.com', eu: 'https://eu.i.posthog.com' },
  // GA4: the global collection host, or the EU one (data collected in the EU stays there).
  ga4: { us: 'https://www.google-analytics.com', eu: 'https://region1.google-analytics.com' },
  // CleverTap: the account's data centre decides the host (its "Region" table); Europe is the
  // default one and answers on api.clevertap.com. A wrong region answers 401, as a wrong passcode.
  clevertap: {
    eu1: 'https://api.clevertap.com',
    in1: 'https://in1.api.clevertap.com',
    sg1: 'https://sg1.api.clevertap.com',
    us1: 'https://us1.api.clevertap.com',
    aps3: 'https://aps3.api.clevertap.com',
    mec1: 'https://mec1.api.clevertap.com',
  },
};

/** The region used when none is given: us, but CleverTap's own default, eu1. */
export const defaultRegion = (vendor: AnalyticsVendor): string => (vendor === 'clevertap' ? 'eu1' : 'us');

/**
 * The API body's names for the key, the endpoint and (GA4, CleverTap) the account (the CLI's are
 * --key, --endpoint and --account-id).
 */
export const FIELDS: Record<AnalyticsVendor, { key: string; endpoint: string; account?: string }> = {
  braze: { key: 'api_key', endpoint: 'rest_endpoint' },
  mixpanel: { key: 'project_token', endpoint: 'region' },
  amplitude: { key: 'api_key', endpoint: 'region' },
  posthog: { key: 'project_api_key', endpoint: 'host' },
  ga4: { key: 'api_secret', endpoint: 'region', account: 'firebase_app_id' },
  clevertap: { key: 'passcode', endpoint: 'region', account: 'account_id' },
};

/** The request path under the endpoint. */
export const PATHS: Record<AnalyticsVendor, string> = {
  braze: '/users/track',
  mixpanel: '/engage?verbose=1&strict=1',
  amplitude: '/identify',
  posthog: '/batch/',
  ga4: '/mp/collect',
  clevertap: '/1/upload',
};
