// Reads what attribution needs from an init body's device_data, tolerating both SDK families
// (real-clients.md §5): Android's gaid / device_id / install_ref (+ Play timestamps) /
// meta_install_ref, iOS's idfa / idfv / adservices_attribution_token. Ids are lower-cased so the
// same device never becomes two; all-zero advertising ids (tracking limited) count as absent.
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
  const installRef = str(deviceData.install_ref, 2048);
  const meta = deviceData.meta_install_ref;
  return {
    gaid: ios ? null : adId(deviceData.gaid),
    idfa: ios ? adId(deviceData.idfa) : null,
    idfv: ios ? adId(deviceData.idfv) : null,
    androidId: ios ? null : adId(deviceData.device_id),
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
