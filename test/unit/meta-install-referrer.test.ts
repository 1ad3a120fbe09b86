// Meta install referrer: decrypting the SDK's device_data.meta_install_ref with the app's key.
// Issue: Meta referrer input goes through a resolver; anything malformed, or sealed for another
// app, is "no claim" and never a throw (the input comes from devices).
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { metaClaim, readMetaInstallReferrer } from '../../src/domain/attribution/meta-install-referrer.ts';
import { META_PLAINTEXT as PLAIN, metaInstallRef as sdkRef, sealMeta } from '../support/meta-referrer.ts';

const KEY = randomBytes(32).toString('hex');
const seal = (plaintext: string, keyHex = KEY) => sealMeta(plaintext, keyHex);

describe('readMetaInstallReferrer', () => {
  it('when the referrer was sealed with the app key, then it yields the campaign, ad set, ad and the webhook details', () => {
    const ref = sdkRef(seal(JSON.stringify(PLAIN)));

    const touch = readMetaInstallReferrer(ref, KEY);

    expect(touch).toEqual({
      metaCampaignId: PLAIN.campaign_id,
      touchType: 'click',
      ts: 1_712_000_000_000,
      adSetId: PLAIN.adgroup_id,
      adSetName: PLAIN.adgroup_name,
      creativeId: PLAIN.ad_id,
      creativeName: '',
      details: {
        campaign_group_id: PLAIN.campaign_group_id,
        campaign_group_name: PLAIN.campaign_group_name,
        account_id: PLAIN.account_id,
        ad_objective_name: PLAIN.ad_objective_name,
        is_instagram: PLAIN.is_instagram,
        publisher_platform: PLAIN.publisher_platform,
        platform_position: PLAIN.platform_position,
      },
    });
  });

  it('when decrypted and mapped to our campaign, then the claim carries the touch', () => {
    const touch = readMetaInstallReferrer(sdkRef(seal(JSON.stringify(PLAIN))), KEY);
    if (!touch) {
      throw new Error('expected a touch');
    }

    expect(metaClaim(touch, { id: 42, displayId: 'meta-spring' })).toEqual({
      method: 'meta_referrer',
      network: 'META',
      campaignId: 42,
      displayId: 'meta-spring',
      ts: 1_712_000_000_000,
      touchType: 'click',
      adSetId: PLAIN.adgroup_id,
      adSetName: PLAIN.adgroup_name,
      creativeId: PLAIN.ad_id,
      creativeName: '',
      keywordId: '',
      keywordName: '',
      details: touch.details,
    });
  });

  it.each([0, '0', false])('when is_ct is %j, then the touch is a view', (isCt) => {
    expect(readMetaInstallReferrer(sdkRef(seal(JSON.stringify(PLAIN)), isCt), KEY)?.touchType).toBe('view');
  });

  it('when actual_timestamp is missing, then the claim has no touch time (not the install time)', () => {
    const touch = readMetaInstallReferrer(sdkRef(seal(JSON.stringify(PLAIN)), 1, null), KEY);

    expect(touch?.ts).toBeNull();
    expect(touch && metaClaim(touch, { id: 1, displayId: 'c1' }).ts).toBeNull();
  });

  it('when install_referrer and utm_content are already objects, then they are read the same', () => {
    const source = seal(JSON.stringify({ ...PLAIN, campaign_id: 777 }));
    const ref = { is_ct: 1, install_referrer: { utm_source: 'apps.instagram.com', utm_content: { source } } };

    expect(readMetaInstallReferrer(ref, KEY)?.metaCampaignId).toBe('777');
  });

  it('when install_referrer is a Play-style query string, then utm_content is read from it', () => {
    const source = seal(JSON.stringify(PLAIN));
    const qs = new URLSearchParams({ utm_source: 'apps.facebook.com', utm_content: JSON.stringify({ source }) });

    expect(readMetaInstallReferrer({ is_ct: '1', install_referrer: qs.toString() }, KEY)?.metaCampaignId).toBe(
      PLAIN.campaign_id,
    );
  });

  it('when the referrer was sealed with another app key, then there is no touch', () => {
    const ref = sdkRef(seal(JSON.stringify(PLAIN), randomBytes(32).toString('hex')));

    expect(readMetaInstallReferrer(ref, KEY)).toBeNull();
  });

  it('when the ciphertext was altered, then there is no touch', () => {
    const source = seal(JSON.stringify(PLAIN));
    const flipped = (Number.parseInt(source.data.slice(0, 2), 16) ^ 1).toString(16).padStart(2, '0');

    expect(readMetaInstallReferrer(sdkRef({ ...source, data: flipped + source.data.slice(2) }), KEY)).toBeNull();
  });

  const good = seal(JSON.stringify(PLAIN));
  const malformed: [string, unknown][] = [
    ['null', null],
    ['a number', 42],
    ['an array', [good]],
    ['a non-JSON string', 'utm_source=apps.facebook.com'],
    ['an empty object', {}],
    ['install_referrer not JSON', { install_referrer: '{"utm_content":' }],
    ['utm_content not JSON', { install_referrer: { utm_content: '{"source":' } }],
    ['source missing', { install_referrer: { utm_content: { other: good } } }],
    ['data not hex', { install_referrer: { utm_content: { source: { ...good, data: 'zz'.repeat(20) } } } }],
    ['data only a tag', { install_referrer: { utm_content: { source: { ...good, data: good.data.slice(-32) } } } }],
    ['odd-length data', { install_referrer: { utm_content: { source: { ...good, data: `${good.data}0` } } } }],
    ['nonce too short', { install_referrer: { utm_content: { source: { ...good, nonce: 'abcd' } } } }],
    ['nonce a number', { install_referrer: { utm_content: { source: { ...good, nonce: 12 } } } }],
    ['plaintext not JSON', sdkRef(seal('campaign_id=1'))],
    ['plaintext an array', sdkRef(seal(JSON.stringify([PLAIN])))],
    ['plaintext without campaign_id', sdkRef(seal(JSON.stringify({ ...PLAIN, campaign_id: undefined })))],
    ['campaign_id an object', sdkRef(seal(JSON.stringify({ ...PLAIN, campaign_id: { id: 1 } })))],
  ];
  it.each(malformed)('when the input is malformed (%s), then there is no touch and no throw', (_name, ref) => {
    expect(readMetaInstallReferrer(ref, KEY)).toBeNull();
  });

  it.each(['', 'xyz', KEY.slice(2), `${KEY}00`])('when the app key is unusable (%j), then there is no touch', (key) => {
    expect(readMetaInstallReferrer(sdkRef(good), key)).toBeNull();
  });
});
