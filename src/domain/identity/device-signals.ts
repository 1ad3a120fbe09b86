// Reads what attribution needs from an init body's device_data, tolerating both SDK families
// (real-clients.md §5): Android's gaid / device_id / install_ref (+ Play timestamps) /
// meta_install_ref, iOS's idfa / idfv / adservices_attribution_token. Ids are lower-cased so the
// same device never becomes two; all-zero advertising ids (tracking limited) count as absent.
// Legacy RN-1.x (platform "REACT_NATIVE", §1) sends device_id = react-native-device-info's
// getDeviceId(), the hardware model ("iPhone14,2", a board like "taro"), and the ANDROID_ID under
// android_id ("unknown" on iOS): read as an Android id, the model made every later install of
// that model a reinstall. So device_id is the Android id only on platform ANDROID (§5.1), and a
// device id counts only when it has the shape of one; idfa / idfv are read on any platform
// (RN-1.x iPhones send them with platform REACT_NATIVE).
import { cutChars } from '../../lib/storable.ts';

export type DeviceSignals = {
  gaid: string | null;
  idfa: string | null;
  idfv: string | null;
  androidId: string | null;
  os: string;
  osVersion: string;
  deviceModel: string;
  userAgent: string;
  installRef: string;
  installBeginAt: Date | null;
  referrerClickId: string | null;
  metaInstallRef: Record<string, unknown> | null;
  appleAdsToken: string | null;
};

const str = (v: unknown, max = 512): string => (typeof v === 'string' ? cutChars(v.trim(), max) : '');

function adId(v: unknown): string | null {
  const s = str(v, 64).toLowerCase();
  return s === '' || /^[0-]+$/.test(s) ? null : s;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// ANDROID_ID: 16 hex digits since Android 8; before it, Long.toHexString dropped leading zeros.
const ANDROID_ID = /^[0-9a-f]{8,16}$/;

/** An IDFA or IDFV: a UUID (iOS sends it upper-case); absent when all zeros (tracking limited). */
function appleId(v: unknown): string | null {
  const s = adId(v);
  return s !== null && UUID.test(s) ? s : null;
}

/** ANDROID_ID, or the random UUID AND-1.1 sends when the device has none (DeviceInfoProvider.getDeviceId). */
function androidId(v: unknown): string | null {
  const s = adId(v);
  return s !== null && (ANDROID_ID.test(s) || UUID.test(s)) ? s : null;
}

function seconds(v: unknown): Date | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  return Number.isFinite(n) && n > 0 && n < 1e11 ? new Date(n * 1000) : null;
}

/** Our click id, when the Play referrer is one our links produced (lr_click_id=…). */
export function clickIdFromReferrer(installRef: string): string | null {
  if (installRef === '') {
    return null;
  }
  try {
    const id = new URLSearchParams(installRef).get('lr_click_id');
    return id && /^[A-Za-z0-9_-]{1,64}$/.test(id) ? id : null;
  } catch {
    return null;
  }
}

export function readDeviceSignals(platform: string, deviceData: Record<string, unknown>): DeviceSignals {
  const ios = platform === 'IOS';
  // As long as parsing keeps it (http/parse/client/common.ts): a cut would break a Meta seal inside.
  const installRef = str(deviceData.install_ref, 16_384);
  const meta = deviceData.meta_install_ref;
  return {
    gaid: ios ? null : adId(deviceData.gaid),
    idfa: appleId(deviceData.idfa),
    idfv: appleId(deviceData.idfv),
    androidId: androidId(platform === 'ANDROID' ? deviceData.device_id : deviceData.android_id),
    os: ios ? 'iOS' : platform === 'ANDROID' ? 'Android' : str(deviceData.base_os, 32),
    osVersion: str(deviceData.system_version, 32) || str(deviceData.os_version, 32),
    deviceModel: ios
      ? str(deviceData.device, 64) || 'iPhone'
      : str(deviceData.model, 64) || str(deviceData.device_name, 64),
    userAgent: str(deviceData.user_agent, 1024),
    installRef,
    installBeginAt:
      seconds(deviceData.install_ref_installBeginTimestampSeconds) ??
      seconds(deviceData.installBeginTimestampServerSeconds),
    referrerClickId: clickIdFromReferrer(installRef),
    metaInstallRef: meta && typeof meta === 'object' && !Array.isArray(meta) ? (meta as Record<string, unknown>) : null,
    appleAdsToken: str(deviceData.adservices_attribution_token, 4096) || null,
  };
}
