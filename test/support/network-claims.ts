// Network claims in tests: a project with Meta's referrer key and a mapped META campaign, an
// APPLE_SEARCH_ADS campaign mapped to Apple's campaign id, and inits carrying the networks'
// signals. Meta needs the harness to have a SECRETS_KEY; Apple needs APPLE_ADS_ATTRIBUTION_URL on
// a fake (fake-apple.ts).
import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { createCampaign } from '../../src/domain/campaigns/create-campaign.ts';
import { setNetworkCampaignId } from '../../src/domain/campaigns/set-network-campaign-id.ts';
import { setMetaReferrerKey } from '../../src/domain/projects/set-meta-referrer-key.ts';
import { campaignWithListings, init, randomIp } from './client.ts';
import { type Harness, newProject, type TestProject } from './harness.ts';
import { META_PLAINTEXT, metaInstallRef, sealMeta } from './meta-referrer.ts';

export const APPLE_CAMPAIGN_ID = '542370539';

/** A project with Meta's referrer key, its META campaign mapped to META_PLAINTEXT's campaign, and a referrer maker. */
export async function metaProject(h: Harness) {
  const p = await newProject(h.deps);
  const key = randomBytes(32).toString('hex');
  await setMetaReferrerKey(h.deps, p.project.id, { key });
  const meta = await campaignWithListings(h.deps, p, { name: 'Meta', adNetwork: 'META' });
  await setNetworkCampaignId(h.deps, p.project.id, {
    displayId: meta.displayId,
    networkCampaignId: META_PLAINTEXT.campaign_id,
  });
  /** The SDK's meta_install_ref for this app (is_ct 1), touched at `tsSeconds` (actual_timestamp). */
  const ref = (tsSeconds: unknown = 1_712_000_000) =>
    metaInstallRef(sealMeta(JSON.stringify(META_PLAINTEXT), key), 1, tsSeconds);
  return { p, meta, ref };
}

/** An APPLE_SEARCH_ADS campaign mapped to Apple's campaign id. */
export async function asaCampaign(h: Harness, p: TestProject, appleId = APPLE_CAMPAIGN_ID) {
  const c = await createCampaign(h.deps, p.project, {
    name: 'ASA brand',
    adNetwork: 'APPLE_SEARCH_ADS',
    deeplink: 'myapp://asa',
  });
  await setNetworkCampaignId(h.deps, p.project.id, { displayId: c.displayId, networkCampaignId: appleId });
  return c;
}

/** An iPhone's init with an AdServices token (and optional device data and link); returns its install id. */
export async function iosInit(
  h: Harness,
  p: TestProject,
  adsToken: string,
  o: { deviceData?: Record<string, unknown>; link?: string } = {},
  ip = randomIp(),
): Promise<string> {
  const iid = randomUUID();
  const res = await init(
    h,
    p.token,
    {
      platform: 'IOS',
      install_instance_id: iid,
      device_data: {
        device: 'iPhone',
        system_version: '17.4.1',
        adservices_attribution_token: adsToken,
        ...o.deviceData,
      },
      ...(o.link ? { link: o.link } : {}),
    },
    ip,
  );
  expect(res.statusCode, res.body).toBe(202);
  return iid;
}

/** An Android init with these device data (and optional link); returns its install id. */
export async function androidInit(
  h: Harness,
  p: TestProject,
  deviceData: Record<string, unknown>,
  link?: string,
): Promise<string> {
  const iid = randomUUID();
  const res = await init(h, p.token, { install_instance_id: iid, device_data: deviceData, ...(link ? { link } : {}) });
  expect(res.statusCode, res.body).toBe(202);
  return iid;
}
