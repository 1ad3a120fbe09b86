// Builds Meta install referrers as the Android SDK sends them (device_data.meta_install_ref), sealed
// the way Meta seals them: AES-256-GCM with the app's Install Referrer Decryption Key, the 16-byte
// tag appended to the ciphertext, hex-encoded with a 12-byte nonce.
import { createCipheriv, randomBytes } from 'node:crypto';

export const META_PLAINTEXT = {
  ad_id: '23850000000000001',
  adgroup_id: '23850000000000002',
  adgroup_name: 'Lookalike 1%',
  campaign_id: '23850000000000003',
  campaign_name: 'Spring installs',
  campaign_group_id: '23850000000000004',
  campaign_group_name: 'Spring',
  account_id: '1234567890',
  ad_objective_name: 'APP_INSTALLS',
  is_instagram: false,
  publisher_platform: 'facebook',
  platform_position: 'feed',
};

export function sealMeta(plaintext: string, keyHex: string): { data: string; nonce: string } {
  const nonce = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', Buffer.from(keyHex, 'hex'), nonce);
  const body = Buffer.concat([c.update(plaintext, 'utf8'), c.final(), c.getAuthTag()]);
  return { data: body.toString('hex'), nonce: nonce.toString('hex') };
}

export function metaInstallRef(
  source: { data: string; nonce: string },
  isCt: unknown = 1,
  ts: unknown = 1_712_000_000,
) {
  return {
    is_ct: isCt,
    install_referrer: JSON.stringify({
      utm_campaign: 'fb4a',
      utm_source: 'apps.facebook.com',
      utm_content: JSON.stringify({ source }),
    }),
    actual_timestamp: ts,
  };
}
