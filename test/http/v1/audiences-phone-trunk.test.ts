// Audience exports (README "Audience exports", Identifiers): phones written the way people type
// them into sign-up forms, through the real export (trigger stores the phone as typed; GET
// /api/v1/audiences/export hashes it). A national trunk prefix typed after an explicit country code
// ("+44 07911 …", "+33 06 …", "+7 8 912 …") is dropped where the country's longest national number
// is known (kept, it gave a number one digit too long that matched nobody); Côte d'Ivoire (+225),
// where since 2021 the leading 0 is part of every 10-digit number, keeps that 0.
// Expected hashes come from `printf '%s' VALUE | sha256sum`, not from the code under test.
import { describe, expect, it } from 'vitest';
import { e164Digits } from '../../../src/domain/audiences/normalize-identifiers.ts';
import { eventAt, exportRequest, landFacts, seedUser } from '../../support/audiences.ts';
import { useClientHarness } from '../../support/client.ts';
import { newProject } from '../../support/harness.ts';

const h = useClientHarness();

const WINDOW = { from: '2025-04-01', to: '2025-04-30', format: 'google', event: 'signup_done' };

/** Google's hash: SHA-256 of '+' and the E.164 digits. */
const GOOGLE = {
  ukMobile: '20b18ac9de7b3aad174961827d8e451c410af9aedfd1d699927f4b29b81aa1fa', // +447911123456
  ukLondon: 'f0bf0228144d9fe2bdf1da2d8ca698f17bf1410ee688b075c27062e47b6f0b6d', // +442079460958
  frMobile: '42d573cfc315801d4cd8eddd5416b416a0bf298b9b9e12d6b07442c91db42bd8', // +33612345678
  ruMobile: '694e8de862e4f3198b67f7a4aa9f4dfb123c5b78b0a72460ce882c405b111e63', // +79123456789
  ciMobile: '0ab17dcee79a8055066549a28bfb7d4cf3fdbadf6e3fda1d18fd249769cc9220', // +2250707123456
};

async function exportedPhone(phone: string, countryCode?: string): Promise<string | undefined> {
  const p = await newProject(h().deps);
  await seedUser(h(), p, { userId: 'u1', phone });
  await eventAt(h(), p, 'u1', 'signup_done', '2025-04-10T10:00:00Z');
  await landFacts(h());
  const query = countryCode === undefined ? WINDOW : { ...WINDOW, phone_country_code: countryCode };
  const res = await exportRequest(h(), p, query);
  expect(res.statusCode, res.body).toBe(200);
  // Header, then the user's line `Email,Phone` (no email here).
  return res.body.split('\n')[1]?.split(',')[1];
}

describe('a trunk prefix typed after the country code', () => {
  it.each([
    ['+44 07911 123456', GOOGLE.ukMobile, '447911123456'],
    ['+44 020 7946 0958', GOOGLE.ukLondon, '442079460958'],
    ['+33 06 12 34 56 78', GOOGLE.frMobile, '33612345678'],
    ['+7 8 912 345 67 89', GOOGLE.ruMobile, '79123456789'],
  ])(
    'when the stored phone is %j, then the export hashes the real number (the trunk prefix dropped)',
    async (phone, hash, digits) => {
      // The function itself, then the file a customer uploads.
      expect(e164Digits(phone, null)).toBe(digits);
      expect(await exportedPhone(phone)).toBe(hash);
    },
  );
});

describe('a country outside the table whose leading 0 is part of the number', () => {
  it("when a Côte d'Ivoire number '07 07 12 34 56' is exported with phone_country_code 225, then it is +2250707123456", async () => {
    expect(e164Digits('07 07 12 34 56', '225')).toBe('2250707123456');
    expect(await exportedPhone('07 07 12 34 56', '225')).toBe(GOOGLE.ciMobile);
  });
});
