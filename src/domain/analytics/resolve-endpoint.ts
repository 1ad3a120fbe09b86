// Where a vendor's requests go, from what the operator or the project gave: a region name (Mixpanel
// us, eu, in; Amplitude us, eu; PostHog us, eu), Braze's REST endpoint (required: it names the
// workspace's cluster, https://rest.<cluster>.braze.com or .braze.eu), or a self-hosted PostHog's
// https URL. A self-hosted host must be a DNS name (no IP literal, no localhost) without
// user:password@, query or fragment: a project's setting must not point the worker at the
// machines beside it.
import type { AnalyticsVendor } from '../../store/postgres/analytics-connections.ts';
import { REGIONS } from './vendors.ts';

const BRAZE = /^https:\/\/rest\.[a-z]{2,8}-\d{1,3}\.braze\.(com|eu)\/?$/;
const URL_MAX = 2048;
const DEFAULT_REGION = 'us';

function selfHosted(value: string): string | undefined {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return undefined;
  }
  const host = u.hostname.toLowerCase();
  const ipLike = /^[\d.]+$/.test(host) || host.startsWith('[');
  const local = host === 'localhost' || host.endsWith('.localhost') || !host.includes('.');
  if (u.protocol !== 'https:' || u.username || u.password || u.search || u.hash || ipLike || local) {
    return undefined;
  }
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

/** The base URL, or a problem in the API's words (`field` names the body's field). */
export function resolveEndpoint(
  vendor: AnalyticsVendor,
  value: string | null,
  field: string,
): { endpoint: string } | { problem: string } {
  if (vendor === 'braze') {
    const v = value?.trim().toLowerCase() ?? '';
    return BRAZE.test(v)
      ? { endpoint: v.replace(/\/$/, '') }
      : { problem: `${field} must be your Braze REST endpoint, like https://rest.iad-01.braze.com` };
  }
  const regions = REGIONS[vendor];
  const name = (value ?? DEFAULT_REGION).trim();
  const region = regions[name.toLowerCase()];
  if (region) {
    return { endpoint: region };
  }
  const names = Object.keys(regions).join(', ');
  if (vendor !== 'posthog') {
    return { problem: `${field} must be one of ${names}` };
  }
  const own = name.length <= URL_MAX ? selfHosted(name) : undefined;
  return own
    ? { endpoint: own }
    : { problem: `${field} must be us, eu or the https URL of your PostHog instance (a DNS name, no credentials)` };
}
