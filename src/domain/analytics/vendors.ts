// The four analytics vendors a project can forward install attribution to, and what differs between
// them in configuration: the regions (or, for Braze, the REST endpoint) their hosts come from, and
// how many users one request carries (Braze /users/track: 75 attribute objects; Mixpanel /engage:
// 2,000 updates; PostHog /batch and Amplitude /identify: kept small so a batch ends well inside its
// claim lease).
import type { AnalyticsVendor } from '../../store/postgres/analytics-connections.ts';

export const ANALYTICS_VENDORS: readonly AnalyticsVendor[] = ['braze', 'mixpanel', 'amplitude', 'posthog'];

export const ANALYTICS_PREFIX = 'analytics:';

export const analyticsDestination = (vendor: AnalyticsVendor): string => `${ANALYTICS_PREFIX}${vendor}`;

export const isAnalyticsVendor = (v: unknown): v is AnalyticsVendor =>
  typeof v === 'string' && (ANALYTICS_VENDORS as readonly string[]).includes(v);

/** The vendor of an 'analytics:<vendor>' destination, else undefined. */
export function analyticsVendorOf(destination: string): AnalyticsVendor | undefined {
  const v = destination.startsWith(ANALYTICS_PREFIX) ? destination.slice(ANALYTICS_PREFIX.length) : undefined;
  return isAnalyticsVendor(v) ? v : undefined;
}

export const BATCH_LIMIT: Record<AnalyticsVendor, number> = { braze: 75, mixpanel: 1000, amplitude: 100, posthog: 100 };

/** Region names and their hosts; Braze has none (its REST endpoint names the cluster). */
export const REGIONS: Record<AnalyticsVendor, Record<string, string>> = {
  braze: {},
  mixpanel: { us: 'https://api.mixpanel.com', eu: 'https://api-eu.mixpanel.com', in: 'https://api-in.mixpanel.com' },
  amplitude: { us: 'https://api2.amplitude.com', eu: 'https://api.eu.amplitude.com' },
  posthog: { us: 'https://us.i.posthog.com', eu: 'https://eu.i.posthog.com' },
};

/** The API body's names for the key and the endpoint (the CLI's are --key and --endpoint). */
export const FIELDS: Record<AnalyticsVendor, { key: string; endpoint: string }> = {
  braze: { key: 'api_key', endpoint: 'rest_endpoint' },
  mixpanel: { key: 'project_token', endpoint: 'region' },
  amplitude: { key: 'api_key', endpoint: 'region' },
  posthog: { key: 'project_api_key', endpoint: 'host' },
};

/** The request path under the endpoint. */
export const PATHS: Record<AnalyticsVendor, string> = {
  braze: '/users/track',
  mixpanel: '/engage?verbose=1',
  amplitude: '/identify',
  posthog: '/batch/',
};
