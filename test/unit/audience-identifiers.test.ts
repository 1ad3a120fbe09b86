// Audience identifiers (domain/audiences/normalize-identifiers.ts, format-row.ts): normalization
// before SHA-256 as Meta's customer file and Google Customer Match ask (email trimmed and
// lower-cased; phone E.164, Meta hashing its digits, Google '+' and the digits), mobile ad ids kept
// raw, CSV lines per format and cells. Phones written "+44 (0)20 …" lose the (0); Italy keeps its
// leading 0; Russia and Kazakhstan (7) lose their trunk 8; a national number already carrying the
// country code is not prefixed twice where the country's longest national number is known, and is
// unusable elsewhere (it may carry the code or not: a guess matches someone else). The expected
// hashes come from `printf '%s' VALUE | sha256sum`, not from the code under test.
import { describe, expect, it } from 'vitest';
import { audienceHeader, audienceLine, csvField } from '../../src/domain/audiences/format-row.ts';
import { e164Digits, hashEmail, hashPhone, mobileAdId } from '../../src/domain/audiences/normalize-identifiers.ts';

const SHA = {
  testEmail: '973dfe463ec85785f5f95af5ba3906eedb2d931c24e69824a89ea65dba4e813b', // test@example.com
  us: '6069d14bf122fdfd931dc7beb58e5dfbba395b1faf05bdcd42d12358d63d8599', // 16505551234
  usPlus: 'a2996076d3ad4af5dc818b908b3d8e354f26ededf7df0e0aa6ac354143805ee0', // +16505551234
  in: '92b5072176e723878b5e06ff3ca61898e4eb74e8c46642a0f2db800b17364ab0', // 919876543210
  inPlus: 'f3a47ce5ce3d4ca8ad15225a245b2759022f79489f5c62719b8c9490f7aab90e', // +919876543210
  uk: '35e206e5dec4c89b9e8b71b8c32724a5bb518483ac5a20c6617d738375b3b823', // 442079460958
  ukPlus: 'f0bf0228144d9fe2bdf1da2d8ca698f17bf1410ee688b075c27062e47b6f0b6d', // +442079460958
  de: '2f9fbc550b12cbc0e6242384cc472bd1e4f058a8b773f189f7acb86d202655ce', // 49301234567
  dePlus: '74bd805bcc47f8603082430ca056311389e38b74fcdfbc32bcb5c6a9269ff3bf', // +49301234567
  it: '472e1123cd4e2f66f1df06bd488dc6135dab8f80cbfcc4af144d042c005f0fb2', // 390612345678
  itPlus: '37b702607839d6dc5fc81d95b52e550e336413bf7ae2e04cafeca79f066ea44b', // +390612345678
};
const GAID = '38400000-8cf0-11bd-b23e-10b96e40000d';

describe('hashEmail', () => {
  it.each([['test@example.com'], ['  Test@Example.COM '], ['TEST@EXAMPLE.COM']])(
    'when the email is %j, then it hashes the trimmed lower-case address',
    (raw) => {
      expect(hashEmail(raw)).toBe(SHA.testEmail);
    },
  );

  it.each([[null], [''], ['   '], ['not-an-email'], ['a@b'], ['two@@example.com']])(
    'when the email is %j, then there is no hash',
    (raw) => {
      expect(hashEmail(raw)).toBeUndefined();
    },
  );

  it('when the stored email already is a SHA-256, then it passes through lower-cased', () => {
    expect(hashEmail(SHA.testEmail.toUpperCase())).toBe(SHA.testEmail);
  });
});

describe('phones', () => {
  it.each([
    ['+1 (650) 555-1234', null],
    ['+1-650-555-1234', null],
    ['0016505551234', null],
    ['650 555 1234', '1'],
    ['+16505551234', '91'],
  ])('when the phone is %j with country code %j, then Meta hashes 16505551234 and Google +16505551234', (raw, cc) => {
    expect(e164Digits(raw, cc)).toBe('16505551234');
    expect(hashPhone(raw, cc)).toEqual({ meta: SHA.us, google: SHA.usPlus });
  });

  it('when a national number has a trunk 0 and the country code is given, then the 0 is dropped', () => {
    expect(hashPhone('09876 543210', '91')).toEqual({ meta: SHA.in, google: SHA.inPlus });
  });

  // "+44 (0)20 7946 0958" is how UK, German, Dutch, Swiss and Austrian numbers are often written:
  // the (0) is dialled only inside the country and is not part of E.164 (+442079460958).
  it.each([
    ['+44 (0)20 7946 0958', { meta: SHA.uk, google: SHA.ukPlus }],
    ['0044 (0) 20 7946 0958', { meta: SHA.uk, google: SHA.ukPlus }],
    ['+44(0)2079460958', { meta: SHA.uk, google: SHA.ukPlus }],
    ['+49 (0)30 1234567', { meta: SHA.de, google: SHA.dePlus }],
    ['+49 ( 0 ) 30 1234567', { meta: SHA.de, google: SHA.dePlus }],
  ])('when the phone is %j, then the "(0)" after the country code is dropped', (raw, hashes) => {
    expect(hashPhone(raw, null)).toEqual(hashes);
  });

  // Italy has no trunk 0: a landline's leading 0 is dialled from abroad too (+39 06 …).
  it.each([
    ['06 1234 5678', '39'],
    ['+39 (0)6 1234 5678', null],
    ['+39 06 1234 5678', '91'],
  ])('when the Italian phone is %j with country code %j, then its leading 0 is kept', (raw, cc) => {
    expect(e164Digits(raw, cc)).toBe('390612345678');
    expect(hashPhone(raw, cc)).toEqual({ meta: SHA.it, google: SHA.itPlus });
  });

  it('when a San Marino landline is given with country code 378, then its leading 0 is kept', () => {
    expect(e164Digits('0549 123456', '378')).toBe('3780549123456');
  });

  it.each([
    ['919876543210', '91', '919876543210'],
    ['091 98765 43210', '91', '919876543210'],
    ['1 (650) 555-1234', '1', '16505551234'],
    ['447911 123456', '44', '447911123456'],
  ])(
    'when %j is longer than any national number and starts with country code %j, then the code is not added twice',
    (raw, cc, digits) => {
      expect(e164Digits(raw, cc)).toBe(digits);
    },
  );

  it.each([
    ['9198765432', '91', 'as long as a national number', '919198765432'],
    ['0491 123456', '49', 'a trunk 0 before it, no national length known', '49491123456'],
  ])('when %j starts with country code %j but is national (%s), then the code is added', (raw, cc, _why, digits) => {
    expect(e164Digits(raw, cc)).toBe(digits);
  });

  // Russia and Kazakhstan share +7 and dial 8 before a national number (10 digits); 8 also starts
  // national numbers (8 800 … toll-free), so it is a trunk prefix only before 10 more digits.
  it.each([
    ['8 912 345-67-89', 'RU mobile, national form', '79123456789'],
    ['8 (495) 123-45-67', 'RU Moscow landline, national form', '74951234567'],
    ['912 345 67 89', 'RU mobile without trunk prefix', '79123456789'],
    ['79123456789', 'RU mobile already with its code', '79123456789'],
    ['+7 912 345 67 89', 'RU mobile, international form', '79123456789'],
    ['8 800 555 35 35', 'RU toll-free, national form', '78005553535'],
    ['800 555 35 35', 'RU toll-free without trunk prefix', '78005553535'],
    ['8 701 123 45 67', 'KZ mobile, national form', '77011234567'],
    ['8 (727) 250-00-00', 'KZ Almaty landline, national form', '77272500000'],
    ['77011234567', 'KZ mobile already with its code', '77011234567'],
  ])('when the phone is %j with country code 7 (%s), then its E.164 digits are %s', (raw, _why, digits) => {
    expect(e164Digits(raw, '7')).toBe(digits);
  });

  // Germany (49) is not in the length table: its national numbers vary in length.
  it.each([
    ['0151 23456789', 'a trunk 0', '4915123456789'],
    ['151 23456789', 'no trunk 0, not starting with 49', '4915123456789'],
    ['030 1234567', 'a Berlin landline with its trunk 0', '49301234567'],
  ])('when the German phone is %j (%s) with country code 49, then its E.164 digits are %s', (raw, _why, digits) => {
    expect(e164Digits(raw, '49')).toBe(digits);
  });

  it.each([
    ['4915123456789', '49', 'a country without a known length: it may already carry its code'],
    ['4930 1234567', '49', 'a country without a known length'],
    ['393 123 4567', '39', 'Italy, where no trunk 0 tells a national number'],
    ['8 912 345-67-89 0', '7', 'longer than a Russian number, not starting with 7'],
    ['7 7912 345 67 89', '7', 'longer than a Russian number with its code'],
    ['22345678901', '1', 'longer than a NANP number, not starting with 1'],
  ])('when %j with country code %j cannot be told (%s), then it is unusable', (raw, cc, _why) => {
    expect(e164Digits(raw, cc)).toBeUndefined();
    expect(hashPhone(raw, cc)).toBeUndefined();
  });

  it.each<[string | null, string | null, string]>([
    ['9876543210', null, 'no country code known'],
    ['+0 650 555 1234', null, 'a country code cannot start with 0'],
    ['+1 650 555 1234 ext 5', null, 'letters'],
    ['+12345', null, 'too short for E.164'],
    ['+1234567890123456', null, 'longer than 15 digits'],
    ['', '1', 'empty'],
    [null, '1', 'absent'],
  ])('when the phone is %j (country code %j: %s), then it is unusable', (raw, cc, _why) => {
    expect(hashPhone(raw, cc)).toBeUndefined();
  });
});

describe('mobileAdId', () => {
  it('when the id is a UUID in any case, then it is kept lower-case and unhashed', () => {
    expect(mobileAdId(GAID.toUpperCase())).toBe(GAID);
  });

  it.each([[null], [''], ['00000000-0000-0000-0000-000000000000'], ['g'], ['=cmd|x']])(
    'when the id is %j, then it is not an advertising id',
    (raw) => {
      expect(mobileAdId(raw)).toBeUndefined();
    },
  );
});

describe('audience lines', () => {
  const full = { userId: 'u-1', email: 'Test@example.com', phone: '+1 650 555 1234', adId: GAID };

  it('when each format writes a user with every identifier, then the header and line are the platform columns', () => {
    expect(audienceHeader('meta') + audienceLine('meta', full, null)).toBe(
      `email,phone,madid\n${SHA.testEmail},${SHA.us},${GAID}\n`,
    );
    expect(audienceHeader('google') + audienceLine('google', full, null)).toBe(
      `Email,Phone\n${SHA.testEmail},${SHA.usPlus}\n`,
    );
    expect(audienceHeader('google_device_ids') + audienceLine('google_device_ids', full, null)).toBe(
      `Mobile Device ID\n${GAID}\n`,
    );
    expect(audienceHeader('plain') + audienceLine('plain', full, null)).toBe(
      `user_id,email_sha256,phone_sha256,madid\nu-1,${SHA.testEmail},${SHA.usPlus},${GAID}\n`,
    );
  });

  it('when the user has none of the format identifiers, then there is no line', () => {
    const onlyAdId = { userId: 'u-2', email: null, phone: '12345', adId: GAID };
    expect(audienceLine('google', onlyAdId, null)).toBeUndefined();
    expect(audienceLine('google_device_ids', { ...full, adId: null }, null)).toBeUndefined();
    expect(audienceLine('meta', { userId: 'u-3', email: 'x', phone: null, adId: null }, null)).toBeUndefined();
  });

  it.each([
    ['a,"b"', '"a,""b"""'],
    ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
    ['+cmd', "'+cmd"],
    ['-5', "'-5"],
    ['-1+1', "'-1+1"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\t=1', "'\t=1"],
    ['\r=1', `"'\r=1"`],
    ['line\nbreak', '"line\nbreak"'],
    [' lead', '" lead"'],
    ['plain-id', 'plain-id'],
  ])('when a plain user id is %j, then its cell is %j: quoted or made text', (id, cell) => {
    expect(csvField(id)).toBe(cell);
    expect(audienceLine('plain', { ...full, userId: id }, null)?.startsWith(`${cell},`)).toBe(true);
  });

  it('when the meta and google lines are written, then every cell is a hex hash or a UUID, never a raw value', () => {
    const u = { ...full, userId: '=evil', email: 'Ana@Example.com' };
    for (const f of ['meta', 'google', 'google_device_ids'] as const) {
      const cells = (audienceLine(f, u, null) ?? '').trimEnd().split(',');
      for (const cell of cells) {
        expect(cell).toMatch(/^(?:[0-9a-f]{64}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/);
      }
    }
  });
});
