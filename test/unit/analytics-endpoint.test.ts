// Where analytics requests go (domain/analytics/resolve-endpoint.ts, vendor-request.ts): regions to
// the vendors' documented hosts, Braze's REST endpoint as given, a self-hosted PostHog only on an
// https DNS name; ANALYTICS_BASE_URL, when the operator sets it, replaces every host.
import { describe, expect, it } from 'vitest';
import { resolveEndpoint } from '../../src/domain/analytics/resolve-endpoint.ts';
import { vendorUrl } from '../../src/domain/analytics/vendor-request.ts';

describe('resolveEndpoint', () => {
  it.each([
    ['mixpanel', null, 'https://api.mixpanel.com'],
    ['mixpanel', 'IN', 'https://api-in.mixpanel.com'],
    ['amplitude', 'eu', 'https://api.eu.amplitude.com'],
    ['posthog', null, 'https://us.i.posthog.com'],
    ['posthog', 'eu', 'https://eu.i.posthog.com'],
    ['posthog', 'https://analytics.example.com/ph/', 'https://analytics.example.com/ph'],
    ['braze', 'https://REST.iad-05.braze.com', 'https://rest.iad-05.braze.com'],
  ] as const)('when %s gets %s, then requests go to %s', (vendor, value, endpoint) => {
    expect(resolveEndpoint(vendor, value, 'f')).toEqual({ endpoint });
  });

  it.each([
    ['braze', null],
    ['braze', 'https://rest.iad-01.braze.com.evil.example'],
    ['posthog', 'http://ph.example.com'],
    ['posthog', 'https://localhost'],
    ['posthog', 'https://[::1]'],
    ['posthog', 'https://127.0.0.1'],
    ['posthog', 'https://ph.example.com/?x=1'],
    ['amplitude', 'https://api2.amplitude.com'],
  ] as const)('when %s gets %s, then it is refused', (vendor, value) => {
    expect(resolveEndpoint(vendor, value, 'f')).toHaveProperty('problem');
  });
});

describe('vendorUrl', () => {
  it('when no override is set, then the stored endpoint and the vendor path; with one, the override', () => {
    expect(vendorUrl('braze', 'https://rest.iad-01.braze.com')).toBe('https://rest.iad-01.braze.com/users/track');
    expect(vendorUrl('mixpanel', 'https://api-eu.mixpanel.com')).toBe('https://api-eu.mixpanel.com/engage?verbose=1');
    expect(vendorUrl('amplitude', 'https://api2.amplitude.com')).toBe('https://api2.amplitude.com/identify');
    expect(vendorUrl('posthog', 'https://eu.i.posthog.com', 'http://127.0.0.1:9')).toBe(
      'http://127.0.0.1:9/posthog/batch/',
    );
  });
});
