// Probabilistic matching compares OS, OS version and model of a click's user agent with the
// device. Reduced user agents (Chrome on Android reports "Android 10; K") carry no real version or
// model, so those count as unknown, never as a mismatch. So does the iOS version WebKit froze from
// iOS 26 on: Safari and in-app browsers there report "iPhone OS 18_6" (or 18_7) whatever the
// system's version, which only the app reports (26.0.1).
export type DeviceTraits = { os: string; osVersion: string; deviceModel: string };
export type MatchResult = { match: boolean; strength: 'exact' | 'partial'; reason: string };

function osFamily(os: string): string {
  const o = os.trim().toLowerCase();
  if (o === 'ipados' || o === 'ios' || o === 'iphone os') {
    return 'ios';
  }
  return o;
}

function isReduced(t: DeviceTraits): boolean {
  return osFamily(t.os) === 'android' && t.deviceModel.trim().toLowerCase() === 'k';
}

const major = (v: string): string => v.trim().split(/[._]/)[0] ?? '';

/** iOS 26+ devices whose click's user agent carries WebKit's frozen 18.6 / 18.7 version. */
function frozenIosVersion(click: DeviceTraits, device: DeviceTraits): boolean {
  const [cMajor, cMinor] = click.osVersion.trim().split(/[._]/).map(Number);
  return osFamily(click.os) === 'ios' && cMajor === 18 && (cMinor ?? 0) >= 6 && Number(major(device.osVersion)) >= 26;
}

function knownModel(t: DeviceTraits): string {
  const m = t.deviceModel.trim().toLowerCase();
  return m === '' || m === 'k' ? '' : m;
}

export function matchDevice(click: DeviceTraits, device: DeviceTraits): MatchResult {
  const os = osFamily(click.os);
  if (os === '' || os !== osFamily(device.os)) {
    return { match: false, strength: 'partial', reason: `os ${click.os || '?'} vs ${device.os || '?'}` };
  }
  let unknown = false;
  const cv = isReduced(click) || frozenIosVersion(click, device) ? '' : major(click.osVersion);
  const dv = major(device.osVersion);
  if (cv !== '' && dv !== '') {
    if (cv !== dv) {
      return { match: false, strength: 'partial', reason: `os version ${click.osVersion} vs ${device.osVersion}` };
    }
  } else {
    unknown = true;
  }
  const cm = knownModel(click);
  const dm = knownModel(device);
  if (cm !== '' && dm !== '') {
    if (!(dm.includes(cm) || cm.includes(dm))) {
      return { match: false, strength: 'partial', reason: `model ${click.deviceModel} vs ${device.deviceModel}` };
    }
  } else {
    unknown = true;
  }
  return unknown
    ? { match: true, strength: 'partial', reason: 'os matches; version or model unknown' }
    : { match: true, strength: 'exact', reason: 'os, version and model match' };
}
