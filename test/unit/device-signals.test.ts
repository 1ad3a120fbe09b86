// What attribution reads from an init's device_data (real-clients.md §5): the AND-1.1 key list on
// Android (gaid, device_id, device_name, system_version, install_ref and the Play timestamps) and
// the iOS 4.0.1 keys (§5.2: device, system_version, idfa only when ATT allows, idfv,
// adservices_attribution_token). Ids are lower-cased; all-zero or empty ad ids mean "absent".
// Legacy RN-1.x (platform REACT_NATIVE, §1/§5.1) sends the hardware model as device_id and the
// ANDROID_ID as android_id: device_id is the Android id on ANDROID only, and device ids count only
// when shaped like one (ANDROID_ID hex, IDFA / IDFV UUIDs), whatever the platform.
import { describe, expect, it } from 'vitest';
import { clickIdFromReferrer, readDeviceSignals } from '../../src/domain/identity/device-signals.ts';

// AND-1.1 utils/DeviceInfoProvider.kt, every key it sets.
const ANDROID = {
  application_name: 'Example',
  app_version: '2.0',
  build_number: '20',
  bundle_id: 'com.example.app',
  version: '2.0',
  device_id: '9774D56D682E549C',
  device_name: 'samsung SM-S911B',
  manufacturer: 'samsung',
  brand: 'samsung',
  system_version: '14',
  connectivity: 'Wi-Fi',
  user_agent: 'Mozilla/5.0 (Linux; Android 14; SM-S911B Build/UP1A.231005.007; wv) AppleWebKit/537.36',
  gaid: '38400000-8CF0-11BD-B23E-10B96E40000D',
  idfa: '',
  idfv: '',
  carrier: ['Jio 4G'],
  device_ip: '192.168.1.23',
  install_ref: 'utm_source=meta&lr_click_id=AbC123xyz&utm_campaign=spring',
  install_ref_url: '',
  install_ref_hashCode: -1_234_567_890,
  install_ref_install_version: '',
  install_ref_installBeginTimestampSeconds: 1_736_942_400,
  install_ref_referrerClickTimestampSeconds: 1_736_942_300,
  installBeginTimestampServerSeconds: 1_736_942_401,
  referrerClickTimestampServerSeconds: 1_736_942_301,
  install_ref_googlePlayInstantParam: false,
};

// iOS Linkrunner.swift DeviceData.toDictionary: always-sent and when-available keys.
const IOS = {
  device: 'iPhone',
  device_name: 'iPhone',
  system_version: '17.4.1',
  brand: 'Apple',
  manufacturer: 'Apple',
  connectivity: 'wifi',
  device_display: { width: 393, height: 852, scale: 3 },
  install_instance_id: 'aB3dE5fG7hJ9kL1mN2pQ',
  bundle_id: 'com.example.app',
  version: '2.0',
  build_number: '20',
  idfa: 'EA7583CD-A667-48BC-B806-42ECB2B48606',
  idfv: '6D2E8F3A-1B4C-4D5E-9F60-7A8B9C0D1E2F',
  locale: 'en_US',
  language: 'en',
  country: 'US',
  timezone: 'America/New_York',
  timezone_offset: -240,
  user_agent: 'Linkrunner-iOS/2.0 (iPhone; iOS 17.4.1; Build/20)',
  adservices_attribution_token: 'aat-token-base64==',
};

describe('readDeviceSignals: Android (AND-1.1 keys)', () => {
  it('when every AND-1.1 key is present, then ids are lower-cased and the Play referrer is read', () => {
    expect(readDeviceSignals('ANDROID', ANDROID)).toEqual({
      gaid: '38400000-8cf0-11bd-b23e-10b96e40000d',
      idfa: null,
      idfv: null,
      androidId: '9774d56d682e549c',
      os: 'Android',
      osVersion: '14',
      deviceModel: 'samsung SM-S911B',
      userAgent: ANDROID.user_agent,
      installRef: ANDROID.install_ref,
      installBeginAt: new Date(1_736_942_400_000),
      referrerClickId: 'AbC123xyz',
      metaInstallRef: null,
      appleAdsToken: null,
    });
  });

  it.each([
    ['empty (limit ad tracking)', ''],
    ['all zeros', '00000000-0000-0000-0000-000000000000'],
    ['whitespace', '   '],
    ['not a string', 123],
  ])('when the gaid is %s, then it is absent', (_case, gaid) => {
    expect(readDeviceSignals('ANDROID', { ...ANDROID, gaid }).gaid).toBeNull();
  });

  it('when an Android body carries an IDFA-shaped idfa and a malformed idfv, then the idfa is read and the idfv is not', () => {
    const s = readDeviceSignals('ANDROID', { ...ANDROID, idfa: 'EA7583CD-A667-48BC-B806-42ECB2B48606', idfv: 'X' });

    expect(s.idfa).toBe('ea7583cd-a667-48bc-b806-42ecb2b48606');
    expect(s.idfv).toBeNull();
  });

  it.each([
    ['16 hex digits (Android 8+)', 'A1B2C3D4E5F60718', 'a1b2c3d4e5f60718'],
    ['15 hex digits (before Android 8, a leading zero dropped)', '1b2c3d4e5f60718', '1b2c3d4e5f60718'],
    ["AND-1.1's UUID fallback", '6D2E8F3A-1B4C-4D5E-9F60-7A8B9C0D1E2F', '6d2e8f3a-1b4c-4d5e-9f60-7a8b9c0d1e2f'],
    ['a board name', 'taro', null],
    ['a build id', 'TP1A.220624.014', null],
    ['"unknown"', 'unknown', null],
    ['all zeros', '0000000000000000', null],
    ['not a string', 1234567890123456, null],
  ])('when the Android device_id is %s (%s), then the Android id is %s', (_case, deviceId, expected) => {
    expect(readDeviceSignals('ANDROID', { ...ANDROID, device_id: deviceId }).androidId).toBe(expected);
  });

  it('when an Android body also carries android_id, then device_id is the Android id (§5.1)', () => {
    expect(readDeviceSignals('ANDROID', { ...ANDROID, android_id: 'ffffffffffffffff' }).androidId).toBe(
      '9774d56d682e549c',
    );
  });

  it('when the Play timestamps arrive as Gson doubles or strings, then the install-begin time is still read', () => {
    expect(
      readDeviceSignals('ANDROID', { install_ref_installBeginTimestampSeconds: 1.7369424e9 }).installBeginAt,
    ).toEqual(new Date(1_736_942_400_000));
    expect(
      readDeviceSignals('ANDROID', { install_ref_installBeginTimestampSeconds: '1736942400' }).installBeginAt,
    ).toEqual(new Date(1_736_942_400_000));
  });

  it('when only the server-side begin timestamp is present, then it is used', () => {
    const s = readDeviceSignals('ANDROID', { installBeginTimestampServerSeconds: 1_736_942_401 });

    expect(s.installBeginAt).toEqual(new Date(1_736_942_401_000));
  });

  it.each([
    ['0 (unknown)', 0],
    ['milliseconds by mistake', 1_736_942_400_000],
    ['negative', -5],
    ['garbage', 'soon'],
  ])('when the begin timestamp is %s, then it is absent', (_case, v) => {
    expect(readDeviceSignals('ANDROID', { install_ref_installBeginTimestampSeconds: v }).installBeginAt).toBeNull();
  });

  it('when a model key is sent (newer SDKs), then it wins over device_name', () => {
    expect(readDeviceSignals('ANDROID', { ...ANDROID, model: 'SM-S911B' }).deviceModel).toBe('SM-S911B');
  });

  it('when meta_install_ref is an object, then it is kept; otherwise it is absent', () => {
    const ref = { campaign_id: '123', ad_id: '456' };

    expect(readDeviceSignals('ANDROID', { meta_install_ref: ref }).metaInstallRef).toEqual(ref);
    expect(readDeviceSignals('ANDROID', { meta_install_ref: [ref] }).metaInstallRef).toBeNull();
    expect(readDeviceSignals('ANDROID', { meta_install_ref: 'x' }).metaInstallRef).toBeNull();
  });
});

describe('readDeviceSignals: iOS (§5.2 keys)', () => {
  it('when every iOS key is present, then idfa and idfv are lower-cased and there is no Play referrer', () => {
    expect(readDeviceSignals('IOS', IOS)).toEqual({
      gaid: null,
      idfa: 'ea7583cd-a667-48bc-b806-42ecb2b48606',
      idfv: '6d2e8f3a-1b4c-4d5e-9f60-7a8b9c0d1e2f',
      androidId: null,
      os: 'iOS',
      osVersion: '17.4.1',
      deviceModel: 'iPhone',
      userAgent: IOS.user_agent,
      installRef: '',
      installBeginAt: null,
      referrerClickId: null,
      metaInstallRef: null,
      appleAdsToken: 'aat-token-base64==',
    });
  });

  it('when ATT is not authorized (idfa omitted), then idfa is absent', () => {
    const { idfa: _omitted, ...withoutIdfa } = IOS;

    expect(readDeviceSignals('IOS', withoutIdfa).idfa).toBeNull();
  });

  it.each([
    ['not a UUID', 'X-Y'],
    ['a UUID without dashes', 'EA7583CDA66748BCB80642ECB2B48606'],
    ['a UUID with a non-hex digit', 'EA7583CD-A667-48BC-B806-42ECB2B4860G'],
  ])('when the idfa and idfv are %s, then they are absent', (_case, id) => {
    const s = readDeviceSignals('IOS', { ...IOS, idfa: id, idfv: id });

    expect([s.idfa, s.idfv]).toEqual([null, null]);
  });

  it('when the IDFA is all zeros (tracking limited), then it is absent', () => {
    expect(readDeviceSignals('IOS', { ...IOS, idfa: '00000000-0000-0000-0000-000000000000' }).idfa).toBeNull();
  });

  it('when iOS sends nulls for optional keys, then they read as absent', () => {
    const s = readDeviceSignals('IOS', { ...IOS, idfv: null, adservices_attribution_token: null, device: null });

    expect(s.idfv).toBeNull();
    expect(s.appleAdsToken).toBeNull();
    expect(s.deviceModel).toBe('iPhone');
  });

  it('when an iOS body carries a gaid or device_id, then they are ignored (Android only)', () => {
    const s = readDeviceSignals('IOS', { ...IOS, gaid: '38400000-8cf0-11bd-b23e-10b96e40000d', device_id: 'abc' });

    expect(s.gaid).toBeNull();
    expect(s.androidId).toBeNull();
  });
});

// RN-1.x src/helper.ts (react-native-device-info): device_id is getDeviceId(), the hardware model.
const RN1_IPHONE = {
  android_id: 'unknown',
  device_id: 'iPhone14,2',
  device: 'iPhone',
  base_os: 'iOS',
  system_version: '17.4',
  gaid: null,
  idfa: 'EA7583CD-A667-48BC-B806-42ECB2B48606',
  idfv: '6D2E8F3A-1B4C-4D5E-9F60-7A8B9C0D1E2F',
};
const RN1_ANDROID = {
  android_id: 'A1B2C3D4E5F60718',
  device_id: 'taro',
  base_os: '',
  system_version: '14',
  gaid: '38400000-8CF0-11BD-B23E-10B96E40000D',
  idfa: null,
  idfv: null,
};

describe('readDeviceSignals: legacy RN-1.x (platform REACT_NATIVE)', () => {
  it('when an RN-1.x iPhone inits, then its idfa and idfv are read and its model is no Android id', () => {
    expect(readDeviceSignals('REACT_NATIVE', RN1_IPHONE)).toMatchObject({
      gaid: null,
      idfa: 'ea7583cd-a667-48bc-b806-42ecb2b48606',
      idfv: '6d2e8f3a-1b4c-4d5e-9f60-7a8b9c0d1e2f',
      androidId: null,
    });
  });

  it('when an RN-1.x Android phone inits, then android_id is its Android id and the board name is not', () => {
    expect(readDeviceSignals('REACT_NATIVE', RN1_ANDROID)).toMatchObject({
      gaid: '38400000-8cf0-11bd-b23e-10b96e40000d',
      idfa: null,
      idfv: null,
      androidId: 'a1b2c3d4e5f60718',
    });
  });

  it('when a non-Android body sends an id-shaped device_id only, then it is not taken as the Android id', () => {
    expect(readDeviceSignals('REACT_NATIVE', { device_id: 'a1b2c3d4e5f60718' }).androidId).toBeNull();
    expect(readDeviceSignals('', { android_id: 'a1b2c3d4e5f60718' }).androidId).toBe('a1b2c3d4e5f60718');
  });
});

describe('readDeviceSignals: other platforms', () => {
  it('when a legacy REACT_NATIVE client sends base_os, then the OS comes from it', () => {
    const s = readDeviceSignals('REACT_NATIVE', { base_os: 'Android', system_version: '13', gaid: 'ABC' });

    expect(s).toMatchObject({ os: 'Android', osVersion: '13', gaid: 'abc' });
  });

  it('when device_data is empty, then every signal is absent', () => {
    expect(readDeviceSignals('', {})).toEqual({
      gaid: null,
      idfa: null,
      idfv: null,
      androidId: null,
      os: '',
      osVersion: '',
      deviceModel: '',
      userAgent: '',
      installRef: '',
      installBeginAt: null,
      referrerClickId: null,
      metaInstallRef: null,
      appleAdsToken: null,
    });
  });
});

describe('clickIdFromReferrer', () => {
  it.each([
    ['an organic Play referrer', 'utm_source=google-play&utm_medium=organic', null],
    ['our click id first', 'lr_click_id=AbC123xyz&utm_source=meta', 'AbC123xyz'],
    ['our click id among UTM parameters', 'utm_source=meta&lr_click_id=Ab_C-1&utm_medium=cpc', 'Ab_C-1'],
    ['an empty referrer', '', null],
    ['an empty click id', 'lr_click_id=&utm_source=x', null],
    ['markup in the click id', 'lr_click_id=%3Cscript%3E', null],
    ['a click id over 64 characters', `lr_click_id=${'a'.repeat(65)}`, null],
  ])('when the referrer is %s, then the click id is %s', (_case, ref, expected) => {
    expect(clickIdFromReferrer(ref)).toBe(expected);
  });
});
