// isPrefetch: the headers by which browsers and in-app browsers announce a prefetch or preview of a
// link (README "Link handler"). Such a request is refused with 503 and never counted; any other
// value, or none, is a visit.
import { describe, expect, it } from 'vitest';
import { isPrefetch } from '../../src/domain/links/is-prefetch.ts';

describe('isPrefetch', () => {
  it.each([
    [{ 'sec-purpose': 'prefetch' }],
    [{ 'sec-purpose': 'prefetch;prerender' }],
    [{ 'sec-purpose': 'prefetch;anonymous-client-ip' }],
    [{ 'sec-purpose': ' Prefetch ' }],
    [{ purpose: 'prefetch' }],
    [{ 'x-purpose': 'preview' }],
    [{ 'x-purpose': 'PREVIEW' }],
    [{ 'x-purpose': 'prefetch' }],
    [{ 'x-moz': 'prefetch' }],
    [{ purpose: ['other', 'prefetch'] }],
  ])('when the request carries %j, then it is a prefetch', (headers) => {
    expect(isPrefetch(headers)).toBe(true);
  });

  it.each([
    [{}],
    [{ 'sec-purpose': '' }],
    [{ 'sec-purpose': 'prefetching' }],
    [{ purpose: 'navigate' }],
    [{ 'x-purpose': 'instant' }],
    [{ 'x-moz': 'other' }],
    [{ 'x-fb-http-engine': 'Liger' }],
  ])('when the request carries %j, then it is a visit', (headers) => {
    expect(isPrefetch(headers)).toBe(false);
  });
});
