// Where a vendor's requests go, from what the operator or the project gave: a region name (Mixpanel
// us, eu, in; Amplitude us, eu; PostHog us, eu; GA4 us, eu; CleverTap eu1, in1, sg1, us1, aps3, mec1), Braze's REST endpoint (required: it names the
// workspace's cluster, https://rest.<cluster>.braze.com or .braze.eu), or a self-hosted PostHog's
// https URL. A self-hosted host must be a public DNS name without user:password@, query or
// fragment: a project's setting must not point the worker at the machines beside it. Refused: IP
// literals (in any spelling URL parsing turns into one), single labels, and names under the
// non-public suffixes (localhost, localdomain, local, internal, …), judged without the trailing
// dot of a fully-qualified spelling (`localhost.`; `。` parses to `.`). A name can still resolve to
// a private address: the send itself refuses those (send-analytics-batch.ts).
import type { AnalyticsVendor } from '../../store/postgres/analytics-connections.ts';
import { defaultRegion, REGIONS } from './vendors.ts';

const BRAZE = /^https:\/\/rest\.[a-z]{2,8}-\d{1,3}\.braze\.(com|eu)\/?$/;
const URL_MAX = 2048;
/** Suffixes that never name a public host (RFC 6761, 6762, 8375; ICANN's .internal; common LAN names). */
const PRIVATE_SUFFIXES = [
  'localhost',
  'localdomain',
  'local',
  'internal',
  'intranet',
  'lan',
  'home',
  'corp',
  'private',
  'home.arpa',
];

function publicName(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  const labels = host.split('.');
  if (labels.length < 2 || labels.some((l) => l === '') || /^[\d.]+$/.test(host) || host.startsWith('[')) {
    return false;
  }
  return !PRIVATE_SUFFIXES.some((s) => host === s || host.endsWith(`.${s}`));
}

function selfHosted(value: string): string | undefined {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'https:' || u.username || u.password || u.search || u.hash || !publicName(u.hostname)) {
    return undefined;
  }
  // Stored without the trailing dot: the certificate names the host without it.
  u.hostname = u.hostname.toLowerCase().replace(/\.$/, '');
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
  const name = (value ?? defaultRegion(vendor)).trim();
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
