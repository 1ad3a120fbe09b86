// readClickParams: the ad-network parameters recorded on a click. Aliases, gaid over idfa, ad ids
// kept only when they are real UUIDs, and values made storable (no NUL, no lone surrogates, capped)
// so one bad click cannot fail the outbox insert its group-commit neighbours share.
import { describe, expect, it } from 'vitest';
import { cleanText, readClickParams } from '../../src/domain/links/read-click-params.ts';

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
    const p = readClickParams({ gclid: ['first', 'second'] });
    expect(p.gclid).toBe('first');
    expect(p.fbclid).toBe('');
    expect(p.network).toBe('');
  });

  it('when network is given, then it is normalised like a campaign network code', () => {
    expect(readClickParams({ network: ' my  affiliate ' }).network).toBe('MY_AFFILIATE');
  });

  it('when the query is not an object, then every field is empty', () => {
    expect(Object.values(readClickParams(undefined)).every((v) => v === '')).toBe(true);
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
