// Audience identifiers (domain/audiences/normalize-identifiers.ts, format-row.ts): normalization
// before SHA-256 as Meta's customer file and Google Customer Match ask (email trimmed and
// lower-cased; phone E.164, Meta hashing its digits, Google '+' and the digits), mobile ad ids kept
// raw, CSV lines per format. The expected hashes come from `printf '%s' VALUE | sha256sum`, not from
// the code under test.
import { describe, expect, it } from 'vitest';
import { audienceHeader, audienceLine, csvField } from '../../src/domain/audiences/format-row.ts';
import { e164Digits, hashEmail, hashPhone, mobileAdId } from '../../src/domain/audiences/normalize-identifiers.ts';

const SHA = {
  testEmail: '973dfe463ec85785f5f95af5ba3906eedb2d931c24e69824a89ea65dba4e813b', // test@example.com
  us: '6069d14bf122fdfd931dc7beb58e5dfbba395b1faf05bdcd42d12358d63d8599', // 16505551234
  usPlus: 'a2996076d3ad4af5dc818b908b3d8e354f26ededf7df0e0aa6ac354143805ee0', // +16505551234
  in: '92b5072176e723878b5e06ff3ca61898e4eb74e8c46642a0f2db800b17364ab0', // 919876543210
  inPlus: 'f3a47ce5ce3d4ca8ad15225a245b2759022f79489f5c62719b8c9490f7aab90e', // +919876543210
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

  it('when a plain user id holds a comma, a quote or starts like a formula, then the cell is quoted or made text', () => {
    expect(csvField('a,"b"')).toBe('"a,""b"""');
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvField('-5')).toBe("'-5");
    expect(csvField('line\nbreak')).toBe('"line\nbreak"');
    expect(csvField('plain-id')).toBe('plain-id');
  });
});
