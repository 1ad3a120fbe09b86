// readClickParams: the ad-network parameters recorded on a click. Aliases, gaid over idfa, ad ids
// kept only when they are real UUIDs, and values made storable (no NUL, no lone surrogates, capped)
// so one bad click cannot fail the outbox insert its group-commit neighbours share. readLinkParams:
// every other parameter (referral codes), kept as one encoded query, capped.
import { describe, expect, it } from 'vitest';
import { cleanText, readLinkParams, readClickParams as readParams } from '../../src/domain/links/read-click-params.ts';

/** readClickParams over a link's query, given as a string or as name/value pairs. */
const readClickParams = (q: string | Record<string, string>) => readParams(new URLSearchParams(q));

describe('readClickParams', () => {
  it('when the alternative spellings are used, then they fill the same fields', () => {
    const a = readClickParams({
      ad_set_id: '1',
      ad_set_name: 'n',
      creative_id: 'c',
      creative_name: 'cn',
      keyword_name: 'k',
    });
    const b = readClickParams({ adset_id: '1', adset_name: 'n', ad_id: 'c', ad_name: 'cn', keyword: 'k' });
    for (const p of [a, b]) {
      expect(p).toMatchObject({ adSetId: '1', adSetName: 'n', creativeId: 'c', creativeName: 'cn', keywordName: 'k' });
    }
  });

  it('when both gaid and idfa are given, then gaid wins, lower-cased', () => {
    const p = readClickParams({
      gaid: 'AAAAAAAA-0000-1111-2222-333333333333',
      idfa: 'BBBBBBBB-0000-1111-2222-333333333333',
    });
    expect(p.adId).toBe('aaaaaaaa-0000-1111-2222-333333333333');
  });

  it.each(['{gaid}', '00000000-0000-0000-0000-000000000000'])(
    'when gaid is %j and idfa a real UUID (a link shared by both platforms, opened on an iPhone), then the idfa is kept',
    (gaid) => {
      expect(readClickParams({ gaid, idfa: 'ABCDEF01-2345-6789-ABCD-EF0123456789' }).adId).toBe(
        'abcdef01-2345-6789-abcd-ef0123456789',
      );
    },
  );

  it.each(['00000000-0000-0000-0000-000000000000', '{idfa}', '__GAID__', 'not-a-uuid'])(
    'when the ad id is %j, then it is not kept',
    (v) => {
      expect(readClickParams({ gaid: v }).adId).toBe('');
    },
  );

  it('when a parameter repeats, then the first value is used; missing ones are empty', () => {
    const p = readClickParams('gclid=first&gclid=second');
    expect(p.gclid).toBe('first');
    expect(p.fbclid).toBe('');
    expect(p.network).toBe('');
  });

  it('when network is given, then it is normalised like a campaign network code', () => {
    expect(readClickParams({ network: ' my  affiliate ' }).network).toBe('MY_AFFILIATE');
  });

  it('when the link also carries its own parameters, then linkParams holds them and the ad fields are as before', () => {
    const p = readClickParams({ referrer: 'user_123', gclid: 'g1', campaign: 'summer2024' });
    expect(p).toMatchObject({ gclid: 'g1', linkParams: 'referrer=user_123&campaign=summer2024' });
  });

  it('when the query is empty, then every field is empty', () => {
    expect(Object.values(readClickParams('')).every((v) => v === '')).toBe(true);
  });

  it('when a numeric name follows the referral code, then linkParams keeps link order (an object would list "2024" first)', () => {
    expect(readClickParams('ref=abc&2024=summer&gclid=g&x=1').linkParams).toBe('ref=abc&2024=summer&x=1');
  });

  it('when the 20th parameter is the referral code and a 21st has a numeric name, then the 21st is the one dropped', () => {
    const fillers = Array.from({ length: 19 }, (_, i) => `a${i + 1}=v`);
    const kept = readClickParams([...fillers, 'ref=CODE42', '1=late'].join('&')).linkParams.split('&');
    expect(kept).toHaveLength(20);
    expect(kept.at(-1)).toBe('ref=CODE42');
  });
});

describe('cleanText', () => {
  it('when a value holds NUL or lone surrogates, then they are removed or replaced', () => {
    expect(cleanText('a\u0000b')).toBe('ab');
    expect(cleanText('x\ud800y\udc00z')).toBe('x\ufffdy\ufffdz');
    expect(cleanText('ok \ud83d\ude00')).toBe('ok \ud83d\ude00');
  });

  it('when the cap falls on an emoji, then it counts characters: the emoji is kept whole or left out, never halved', () => {
    expect(cleanText(`${'a'.repeat(511)}\ud83d\ude00`)).toBe(`${'a'.repeat(511)}\ud83d\ude00`);
    expect(cleanText(`${'a'.repeat(512)}\ud83d\ude00`)).toBe('a'.repeat(512));
    expect(cleanText(`${'a'.repeat(10)}\ud83d`)).toBe(`${'a'.repeat(10)}\ufffd`);
    expect(cleanText('x'.repeat(600))).toHaveLength(512);
  });
});

describe('readLinkParams', () => {
  const entries = (q: Record<string, unknown>) => Object.entries(q);

  it('when every name the service reads is given, in any case, with lr_ names, then nothing is kept', () => {
    const read = (
      'c gaid idfa network gclid gbraid wbraid fbclid ttclid utm_source utm_medium utm_campaign utm_term ' +
      'utm_content adset_id ad_set_id adset_name ad_set_name ad_id creative_id ad_name creative_name keyword_id ' +
      'keyword keyword_name lr_click_id LR_X GCLID Utm_Source'
    ).split(' ');
    expect(readLinkParams(read.map((n) => [n, 'v']))).toBe('');
  });

  it('when names repeat, then the first value of each is kept, in link order, URL-encoded', () => {
    const got = readLinkParams([
      ['b', 'two words'],
      ['a', ['x&y=z', 'ignored']],
      ['b', 'later'],
      ['é', '😀'],
    ]);
    expect(got).toBe('b=two%20words&a=x%26y%3Dz&%C3%A9=%F0%9F%98%80');
  });

  it('when a value is empty, then the name is kept with an empty value; an empty name or a non-string is not', () => {
    expect(readLinkParams(entries({ promo: '', '': 'x', n: 5, o: { a: 1 } }))).toBe('promo=');
  });

  it('when NUL or a lone surrogate is given, then it is cleaned before encoding (encodeURIComponent would throw)', () => {
    expect(readLinkParams(entries({ a: 'x\u0000y\ud800' }))).toBe('a=xy%EF%BF%BD');
  });

  it('when more than 20 parameters are given, then the first 20 are kept', () => {
    const got = readLinkParams(Array.from({ length: 30 }, (_, i) => [`k${i}`, `${i}`] as [string, string]));
    expect(got.split('&')).toHaveLength(20);
    expect(got.endsWith('k19=19')).toBe(true);
  });

  it('when a parameter would pass 1,000 characters, then it is dropped and a later one that fits is kept', () => {
    const got = readLinkParams(entries({ a: 'a'.repeat(500), b: 'b'.repeat(500), z: 'z' }));
    expect(got).toBe(`a=${'a'.repeat(500)}&z=z`);
    expect(got.length).toBeLessThanOrEqual(1000);
  });
});
