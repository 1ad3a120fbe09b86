// Where analytics requests go (domain/analytics/resolve-endpoint.ts, vendor-request.ts): regions to
// the vendors' documented hosts, Braze's REST endpoint as given, a self-hosted PostHog only on an
// https DNS name that is not a loopback, LAN or metadata name in any spelling (trailing dot, the
// ideographic full stop, numeric IPv4 forms); ANALYTICS_BASE_URL, when the operator sets it,
// replaces every host.
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
    ['posthog', 'https://PH.Example.com.:8443/', 'https://ph.example.com:8443'],
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

  it.each([
    'https://localhost./',
    'https://LOCALHOST.:6379',
    'https://localhost\u3002/',
    'https://api.localhost./',
    'https://localhost.localdomain/',
    'https://db.localdomain./',
    'https://metadata.google.internal/computeMetadata/v1',
    'https://printer.local/',
    'https://router.home.arpa/',
    'https://localhost../',
    'https://ph/',
  ])('when a PostHog host is %s (loopback, metadata or LAN name), then it is refused', (host) => {
    expect(resolveEndpoint('posthog', host, 'host')).toHaveProperty('problem');
  });

  it.each([
    'https://0x7f.0.0.1/',
    'https://2130706433/',
    'https://0177.0.0.1/',
    'https://169.254.169.254./',
    'https://[::ffff:7f00:1]/',
  ])('when a PostHog host is %s (an IP literal URL parsing normalises), then it is refused', (host) => {
    expect(resolveEndpoint('posthog', host, 'host')).toHaveProperty('problem');
  });
});

describe('vendorUrl', () => {
  it('when no override is set, then the stored endpoint and the vendor path; with one, the override', () => {
    expect(vendorUrl('braze', 'https://rest.iad-01.braze.com')).toBe('https://rest.iad-01.braze.com/users/track');
    expect(vendorUrl('mixpanel', 'https://api-eu.mixpanel.com')).toBe(
      'https://api-eu.mixpanel.com/engage?verbose=1&strict=1',
    );
    expect(vendorUrl('amplitude', 'https://api2.amplitude.com')).toBe('https://api2.amplitude.com/identify');
    expect(vendorUrl('posthog', 'https://eu.i.posthog.com', 'http://127.0.0.1:9')).toBe(
      'http://127.0.0.1:9/posthog/batch/',
    );
  });
});
