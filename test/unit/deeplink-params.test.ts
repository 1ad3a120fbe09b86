// withLinkParams: a campaign deeplink with the winning link's own parameters appended (referral
// codes). Any scheme; the deeplink's query and fragment are kept byte for byte; a name the
// deeplink already has keeps the deeplink's value. linkParamsOfUrl: the same parameters read from
// a link given as text (an init link).
import { describe, expect, it } from 'vitest';
import { linkParamsOfUrl, withLinkParams } from '../../src/domain/links/deeplink-params.ts';

describe('withLinkParams', () => {
  it.each([
    ['myapp://promo/spring', 'myapp://promo/spring?ref=u1&c2=x'],
    ['myapp://promo/spring?', 'myapp://promo/spring?ref=u1&c2=x'],
    ['myapp://promo?screen=sale', 'myapp://promo?screen=sale&ref=u1&c2=x'],
    ['myapp://promo?screen=sale&', 'myapp://promo?screen=sale&ref=u1&c2=x'],
    ['myapp://promo#top', 'myapp://promo?ref=u1&c2=x#top'],
    ['myapp://promo?a=1#frag?x=1', 'myapp://promo?a=1&ref=u1&c2=x#frag?x=1'],
    ['https://shop.example.com/p/42?lang=en', 'https://shop.example.com/p/42?lang=en&ref=u1&c2=x'],
  ])('when the deeplink is %j, then %j', (deeplink, expected) => {
    expect(withLinkParams(deeplink, 'ref=u1&c2=x')).toBe(expected);
  });

  it("when the deeplink's query already has a name (encoded or not), then the deeplink's value is kept", () => {
    expect(withLinkParams('myapp://p?ref=campaign&na%6De=x', 'ref=user&name=y&other=z')).toBe(
      'myapp://p?ref=campaign&na%6De=x&other=z',
    );
    expect(withLinkParams('myapp://p?ref=campaign', 'ref=user')).toBe('myapp://p?ref=campaign');
  });

  it('when there are no parameters or no deeplink text, then the deeplink is returned as it is', () => {
    expect(withLinkParams('myapp://p?x=%zz', '')).toBe('myapp://p?x=%zz');
    expect(withLinkParams('', 'ref=u1')).toBe('');
  });
});

describe('linkParamsOfUrl', () => {
  it('when the link has referral and ad parameters, then only the referral ones, with or without a scheme', () => {
    expect(linkParamsOfUrl('https://get.example.com/abc?referrer=user_123&gclid=g&c=abc')).toBe('referrer=user_123');
    expect(linkParamsOfUrl('get.example.com/?c=abc&campaign=summer2024')).toBe('campaign=summer2024');
  });

  it('when the link cannot be read, then nothing', () => {
    expect(linkParamsOfUrl('http://[bad')).toBe('');
  });
});
