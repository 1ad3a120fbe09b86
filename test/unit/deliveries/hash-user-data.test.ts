// Normalization vectors for Meta's customer information parameters, following the Business SDK's
// rules (facebook-nodejs-business-sdk serverside/utils.js): the expected value is the SHA-256 of
// the normalized text Meta documents, so a wrong normalization changes the hash.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashContact } from '../../../src/domain/deliveries/hash-user-data.ts';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

describe('hashContact', () => {
  it.each([
    ['em', ' Foo@Bar.com ', 'foo@bar.com'],
    ['em', 'JOHN.DOE+ads@Example.CO.UK', 'john.doe+ads@example.co.uk'],
    ['ph', '+44 (0)20 7946 0958', '4402079460958'],
    ['ph', '0044 20 7946 0958', '442079460958'],
    ['ph', '+1 (650) 555-1234', '16505551234'],
    ['ph', '650-555-1234', '6505551234'],
    ['ph', '(0)12 3456 7890', '01234567890'],
    ['external_id', ' User-42 ', 'user-42'],
  ] as const)('when %s is %j, then it is sha256(%j)', (field, raw, normalized) => {
    expect(hashContact(field, raw)).toBe(sha(normalized));
  });

  it('when a value is already a SHA-256 (any case), then it passes through unhashed', () => {
    const hashed = sha('foo@bar.com');
    expect(hashContact('em', hashed.toUpperCase())).toBe(hashed);
    expect(hashContact('ph', ` ${hashed} `)).toBe(hashed);
    expect(hashContact('external_id', hashed)).toBe(hashed);
  });

  it('when a value is empty or malformed, then it is left out (never sent raw)', () => {
    expect(hashContact('em', null)).toBeUndefined();
    expect(hashContact('em', '   ')).toBeUndefined();
    expect(hashContact('em', 'not-an-email')).toBeUndefined();
    expect(hashContact('ph', '12345')).toBeUndefined();
    expect(hashContact('ph', '1234567890123456')).toBeUndefined();
  });
});
