// Probabilistic device matching: a click's parsed UA against the device the SDK describes. OS
// families compare case-insensitively (iPadOS and "iPhone OS" are iOS), versions by major number,
// models by containment ("SM-S911B" in "samsung SM-S911B"). Reduced Chrome UAs ("Android 10; K")
// and missing values are unknown, never a mismatch, and make the match partial.
import { describe, expect, it } from 'vitest';
import { type DeviceTraits, matchDevice } from '../../src/domain/attribution/device-match.ts';

const t = (os: string, osVersion: string, deviceModel: string): DeviceTraits => ({ os, osVersion, deviceModel });

const EXACT = { match: true, strength: 'exact', reason: 'os, version and model match' };
const PARTIAL = { match: true, strength: 'partial', reason: 'os matches; version or model unknown' };

describe('matchDevice', () => {
  it.each([
    ['Android, same major and model', t('Android', '14', 'SM-S911B'), t('Android', '14', 'samsung SM-S911B'), EXACT],
    ['iPhone, minor versions differ', t('iOS', '17.4', 'iPhone'), t('iOS', '17.4.1', 'iPhone'), EXACT],
    ['an underscore version', t('iOS', '17_4', 'iPhone'), t('iOS', '17.4.1', 'iPhone'), EXACT],
    ['an iPad click and an iPadOS device', t('iOS', '17.4', 'iPad'), t('iPadOS', '17.4', 'iPad'), EXACT],
    ['"iPhone OS" from an old parser', t('iPhone OS', '16.0', 'iPhone'), t('iOS', '16.2', 'iPhone'), EXACT],
    ['OS names in other cases', t('ANDROID', '14', 'sm-s911b'), t('android', '14', 'Samsung SM-S911B'), EXACT],
    ['a reduced Chrome UA (Android 10; K)', t('Android', '10', 'K'), t('Android', '14', 'samsung SM-S911B'), PARTIAL],
    ['no model on the click', t('Android', '14', ''), t('Android', '14', 'samsung SM-S911B'), PARTIAL],
    ['no version on the device', t('Android', '14', 'SM-S911B'), t('Android', '', 'samsung SM-S911B'), PARTIAL],
  ])('when comparing %s, then it matches', (_case, click, device, expected) => {
    expect(matchDevice(click, device)).toEqual(expected);
  });

  it.each([
    ['different OS', t('iOS', '17.4', 'iPhone'), t('Android', '14', 'Pixel 8'), 'os iOS vs Android'],
    ['an unknown click OS', t('', '', ''), t('Android', '14', 'Pixel 8'), 'os ? vs Android'],
    ['a different major version', t('Android', '13', 'Pixel 8'), t('Android', '14', 'Pixel 8'), 'os version 13 vs 14'],
    [
      'a different model',
      t('Android', '14', 'Pixel 8'),
      t('Android', '14', 'samsung SM-S911B'),
      'model Pixel 8 vs samsung SM-S911B',
    ],
  ])('when comparing %s, then it does not match and says why', (_case, click, device, reason) => {
    expect(matchDevice(click, device)).toEqual({ match: false, strength: 'partial', reason });
  });

  it('when a reduced UA claims Android 10 on an Android 14 device, then the version is not held against it', () => {
    const reduced = t('Android', '10', 'K');

    expect(matchDevice(reduced, t('Android', '14', 'Pixel 8')).match).toBe(true);
    expect(matchDevice(t('Android', '10', 'Pixel 8'), t('Android', '14', 'Pixel 8')).match).toBe(false);
  });

  it('when an iOS 26 device clicked with WebKit\'s frozen "iPhone OS 18_6" (or 18_7), then the version is unknown, not a mismatch', () => {
    const device = t('iOS', '26.0.1', 'iPhone15,2');

    expect(matchDevice(t('iOS', '18.6', 'iPhone'), device)).toMatchObject({ match: true, strength: 'partial' });
    expect(matchDevice(t('iOS', '18.7', 'iPhone'), device).match).toBe(true);
    // A real 18.5 (never frozen) or 17.x on a 26 device still differs; so does 18.6 on an iOS 25.
    expect(matchDevice(t('iOS', '18.5', 'iPhone'), device).match).toBe(false);
    expect(matchDevice(t('iOS', '17.4', 'iPhone'), device).match).toBe(false);
    expect(matchDevice(t('iOS', '18.6', 'iPhone'), t('iOS', '18.6.2', 'iPhone15,2'))).toMatchObject({ match: true });
  });
});
