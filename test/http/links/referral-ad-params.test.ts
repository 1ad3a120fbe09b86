// Referral codes. README "Referral codes": "... return the campaign `deeplink` with
// them appended ... Ad parameters are never appended." Product notes: the ad networks supported
// are Google, Meta, TikTok, Snapchat, LinkedIn (src/domain/campaigns/campaign.ts KNOWN_NETWORKS has
// SNAPCHAT and LINKEDIN), and "Each click is recorded with gaid/idfa, ad-network click ids, ...".
// Snapchat's ads append `ScCid` (its click id) and LinkedIn's `li_fat_id`; Microsoft's `msclkid`,
// X's `twclid`, Google DV360's `dclid`. Those are ad parameters: they must not reach the app's deeplink.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  attribute,
  attributionData,
  campaignWithListings,
  clickLink,
  flushFacts,
  init,
  randomIp,
  useClientHarness,
} from '../../support/client.ts';
import { newProject } from '../../support/harness.ts';

const h = useClientHarness();

async function deeplinkAfterClick(query: string): Promise<string | null> {
  const { deps } = h();
  const p = await newProject(deps);
  const c = await campaignWithListings(deps, p);
  const ip = randomIp();
  const { clickId, referrer } = await clickLink(h(), c, { ip, query });
  await flushFacts(h());
  const iid = randomUUID();
  await init(
    h(),
    p.token,
    { install_instance_id: iid, device_data: { install_ref: referrer, gaid: randomUUID() } },
    ip,
  );
  expect(await attribute(h(), p, iid)).toMatchObject({ method: 'play_referrer', click: { clickId } });
  const res = await attributionData(h(), p.token, iid);
  expect(res.statusCode).toBe(200);
  return res.json().data.deeplink;
}

describe('ad-network click ids of supported networks stay out of the deeplink', () => {
  it('when a Snapchat ad link carries ScCid and a LinkedIn one li_fat_id, then only the referral parameter is appended', async () => {
    const deeplink = await deeplinkAfterClick(
      'referrer=user_1&ScCid=5f1c9a2e-snap-click&li_fat_id=8a7b6c5d-linkedin&msclkid=0d1e2f3a4b&twclid=2-abc&dclid=CJ123',
    );

    // Observed: myapp://promo/spring?referrer=user_1&ScCid=...&li_fat_id=...&msclkid=...&twclid=...&dclid=...
    expect(deeplink).toBe('myapp://promo/spring?referrer=user_1');
  });
});
