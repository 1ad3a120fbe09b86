// Meta install referrer resolver. The Android SDK (≥3.5.2) reads Meta's content provider and sends
// device_data.meta_install_ref: {is_ct, install_referrer, actual_timestamp}; without it, the Play
// install referrer (device_data.install_ref) may carry the same sealed utm_content. install_referrer is
// JSON (sometimes already an object, or a Play-style query string) whose utm_content is JSON
// {"source":{"data":<hex>,"nonce":<hex>}}: AES-256-GCM ciphertext with its 16-byte tag appended,
// sealed with the app's Install Referrer Decryption Key (per project, stored encrypted) and the
// 12-byte nonce. The plaintext names Meta's campaign_id, mapped to the project's META campaign by
// meta_campaign_id or network_campaign_id. A successful decryption is the proof the touch came
// from Meta for this app, so utm_source is not trusted or required.
//
// Input from devices is untrusted: anything malformed, or sealed with another key, is no claim.
import { createDecipheriv } from 'node:crypto';
import type { Deps } from '../../deps.ts';
import { parseJsonKeepingDigits } from '../../lib/json-numbers.ts';
import { decryptSecret, loadSecretsKey } from '../../lib/secrets.ts';
import { cutChars, storable } from '../../lib/storable.ts';
import { findCampaignByNetworkCampaignId } from '../../store/postgres/network-campaigns.ts';
import { findMetaReferrerKeyEnc } from '../../store/postgres/project-secrets.ts';
import { metaReferrerKeyContext } from '../projects/set-meta-referrer-key.ts';
import type { NetworkResolver } from './resolvers.ts';
import type { NetworkClaim, NetworkDetails } from './types.ts';

export const META = 'META';
const TAG_BYTES = 16;
const MAX_DATA_HEX = 16 * 1024;

/** What Meta's referrer tells about the ad touch that led to the install. */
export type MetaTouch = {
  metaCampaignId: string;
  touchType: 'click' | 'view';
  ts: number | null; // epoch ms of the touch (actual_timestamp), when sent
  adSetId: string;
  adSetName: string;
  creativeId: string;
  creativeName: string;
  /** The other keys of the referrer the webhooks' meta_campaign_details names (only those sent). */
  details: NetworkDetails;
};

type Obj = Record<string, unknown>;

function asObject(v: unknown): Obj | null {
  let value = v;
  if (typeof v === 'string') {
    try {
      // Meta's ids are 17 to 18 digits: sent as numbers, JSON.parse would round them.
      value = parseJsonKeepingDigits(v);
    } catch {
      return null;
    }
  }
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Obj) : null;
}

/** install_referrer as JSON (string or object), or as a query string (utm_source=…&utm_content=…). */
function referrerFields(v: unknown): Obj | null {
  const obj = asObject(v);
  if (obj || typeof v !== 'string' || !v.includes('utm_content=')) {
    return obj;
  }
  return Object.fromEntries(new URLSearchParams(v));
}

const text = (v: unknown, max = 256): string =>
  typeof v === 'string' ? cutChars(v.trim(), max) : typeof v === 'number' && Number.isFinite(v) ? String(v) : '';

function secondsToMs(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  return Number.isFinite(n) && n > 0 && n < 1e11 ? Math.round(n * 1000) : null;
}

const DETAIL_KEYS = [
  'campaign_group_id',
  'campaign_group_name',
  'account_id',
  'ad_objective_name',
  'publisher_platform',
  'platform_position',
] as const;

function touchDetails(plain: Obj): NetworkDetails {
  const out: NetworkDetails = {};
  for (const k of DETAIL_KEYS) {
    const v = storable(text(plain[k]));
    if (v !== '') {
      out[k] = v;
    }
  }
  if (typeof plain.is_instagram === 'boolean') {
    out.is_instagram = plain.is_instagram;
  }
  return out;
}

function decrypt(keyHex: string, dataHex: string, nonceHex: string): string | null {
  if (!/^[0-9a-f]{64}$/i.test(keyHex) || !/^[0-9a-f]{24}$/i.test(nonceHex)) {
    return null;
  }
  if (dataHex.length > MAX_DATA_HEX || dataHex.length % 2 !== 0 || !/^[0-9a-f]+$/i.test(dataHex)) {
    return null;
  }
  const data = Buffer.from(dataHex, 'hex');
  if (data.length <= TAG_BYTES) {
    return null;
  }
  try {
    const d = createDecipheriv('aes-256-gcm', Buffer.from(keyHex, 'hex'), Buffer.from(nonceHex, 'hex'));
    d.setAuthTag(data.subarray(data.length - TAG_BYTES));
    return Buffer.concat([d.update(data.subarray(0, data.length - TAG_BYTES)), d.final()]).toString('utf8');
  } catch {
    return null;
  }
}

/** Decrypts the SDK's meta_install_ref with the app's key; null for anything unusable. Never throws. */
export function readMetaInstallReferrer(ref: unknown, keyHex: string): MetaTouch | null {
  const outer = asObject(ref);
  if (!outer) {
    return null;
  }
  const referrer = referrerFields(outer.install_referrer) ?? outer;
  const source = asObject(asObject(referrer.utm_content)?.source);
  if (!source || typeof source.data !== 'string' || typeof source.nonce !== 'string') {
    return null;
  }
  const plain = asObject(decrypt(keyHex, source.data, source.nonce));
  const metaCampaignId = text(plain?.campaign_id, 64);
  if (!plain || !metaCampaignId) {
    return null;
  }
  const isCt = outer.is_ct;
  return {
    metaCampaignId,
    touchType: isCt === 0 || isCt === '0' || isCt === false ? 'view' : 'click',
    ts: secondsToMs(outer.actual_timestamp),
    adSetId: text(plain.adgroup_id),
    adSetName: text(plain.adgroup_name),
    creativeId: text(plain.ad_id),
    creativeName: text(plain.ad_name),
    details: touchDetails(plain),
  };
}

export function metaClaim(touch: MetaTouch, campaign: { id: number; displayId: string }): NetworkClaim {
  return {
    method: 'meta_referrer',
    network: META,
    campaignId: campaign.id,
    displayId: campaign.displayId,
    ts: touch.ts,
    touchType: touch.touchType,
    adSetId: touch.adSetId,
    adSetName: touch.adSetName,
    creativeId: touch.creativeId,
    creativeName: touch.creativeName,
    keywordId: '',
    keywordName: '',
    details: touch.details,
  };
}

/**
 * Whether a Play install referrer carries Meta's sealed payload (utm_content {"source": {"data",
 * "nonce"}}): Meta's app-install ads put it there too (real-clients §5.1: install_ref carries the
 * Meta referrer), and an app whose SDK does not read Meta's content provider sends only that.
 * Read without the key, so other installs cost no key lookup.
 */
function metaSealedIn(installRef: string): boolean {
  if (!installRef.includes('utm_content=')) {
    return false;
  }
  const fields = referrerFields(installRef);
  const source = asObject(asObject(fields?.utm_content)?.source);
  return typeof source?.data === 'string' && typeof source.nonce === 'string';
}

/** The install's Meta referrer: the SDK's meta_install_ref, else its Play referrer when Meta sealed it. */
function metaReferrerOf(install: { metaInstallRef: Obj | null; installRef: string }): unknown {
  if (install.metaInstallRef) {
    return install.metaInstallRef;
  }
  return metaSealedIn(install.installRef) ? { install_referrer: install.installRef } : null;
}

export function metaInstallReferrerResolver(deps: Pick<Deps, 'sql' | 'config'>): NetworkResolver {
  return {
    method: 'meta_referrer',
    async resolve({ projectId, install }) {
      const ref = metaReferrerOf(install);
      if (!ref) {
        return null;
      }
      const sealed = await findMetaReferrerKeyEnc(deps.sql, projectId);
      if (!sealed) {
        return null; // the project has not set its key: Meta's referrer cannot be read
      }
      const keyHex = decryptSecret(await loadSecretsKey(deps.config), sealed, metaReferrerKeyContext(projectId));
      const touch = readMetaInstallReferrer(ref, keyHex);
      // The campaign mapped when the install was made: one deleted since still takes it, as its clicks do.
      const campaign = touch
        ? await findCampaignByNetworkCampaignId(deps.sql, projectId, META, touch.metaCampaignId, install.createdAt)
        : undefined;
      return touch && campaign ? metaClaim(touch, campaign) : null;
    },
  };
}
