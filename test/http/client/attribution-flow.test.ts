// Click → init → attribution → attribution-data / get-attribution-result, through the real routes,
// the outbox, ClickHouse and the attribution job handler.
import { describe, expect, it } from 'vitest';
import { attributeInstall } from '../../../src/domain/attribution/attribute-install.ts';
import { createCampaign } from '../../../src/domain/campaigns/create-campaign.ts';
import { flushAllFacts } from '../../../src/domain/facts/flush-facts.ts';
import { FACT_TABLES } from '../../../src/domain/facts/tables.ts';
import { addStoreListing } from '../../../src/domain/projects/add-store-listing.ts';
import { newProject, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

const ANDROID_UA =
  'Mozilla/5.0 (Linux; Android 14; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36';
const IPHONE_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

async function setup() {
  const { app, deps } = h();
  const p = await newProject(deps);
  const play = await addStoreListing(deps, p.project.id, {
    name: 'Play',
    platform: 'ANDROID',
    url: 'https://play.google.com/store/apps/details?id=com.example.app',
  });
  const appStore = await addStoreListing(deps, p.project.id, {
    name: 'App Store',
    platform: 'IOS',
    url: 'https://apps.apple.com/app/id123456789',
  });
  const campaign = await createCampaign(deps, p.project, {
    name: 'Spring',
    deeplink: 'myapp://promo/spring',
    storeListingIds: [play.id, appStore.id],
  });
  return { app, deps, p, campaign };
}

describe('click to attribution', () => {
  it('when the Play referrer carries our click id, then the install is attributed deterministically', async () => {
    const { app, deps, p, campaign } = await setup();
    const click = await app.inject({
      method: 'GET',
      url: `/${campaign.displayId}?utm_source=meta&adset_id=as1&adset_name=Set%201`,
      headers: { host: 'attr.test', 'user-agent': ANDROID_UA },
      remoteAddress: '10.1.2.3',
    });
    expect(click.statusCode).toBe(302);
    const referrer = new URL(String(click.headers.location)).searchParams.get('referrer') ?? '';
    const clickId = new URLSearchParams(referrer).get('lr_click_id');
    expect(clickId).toBeTruthy();
    await flushAllFacts(deps, FACT_TABLES);

    const iid = crypto.randomUUID();
    const init = await app.inject({
      method: 'POST',
      url: '/api/client/init',
      payload: {
        token: p.token,
        platform: 'ANDROID',
        install_instance_id: iid,
        device_data: {
          install_ref: referrer,
          gaid: 'AAAA-BBBB',
          system_version: '14',
          device_name: 'samsung SM-S911B',
        },
      },
      remoteAddress: '10.9.9.9',
    });
    expect(init.statusCode).toBe(202);
    expect(init.json()).toEqual({
      processing_id: expect.stringMatching(/^pr_/),
      status: 'accepted',
      message: 'Install event accepted for processing',
      success: true,
    });

    const pending = await app.inject({
      method: 'POST',
      url: '/api/client/attribution-data',
      payload: { token: p.token, platform: 'ANDROID', install_instance_id: iid },
    });
    expect(pending.json().data).toMatchObject({ campaign_data: null, attribution_source: 'PENDING' });
    expect(pending.headers['cache-control']).toBe('no-store');

    const decision = await attributeInstall(deps, { projectId: p.project.id, installInstanceId: iid });
    expect(decision?.method).toBe('play_referrer');

    const res = await app.inject({
      method: 'POST',
      url: '/api/client/attribution-data',
      payload: { token: p.token, platform: 'ANDROID', install_instance_id: iid },
    });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.deeplink).toBe('myapp://promo/spring');
    expect(data.campaign_data).toMatchObject({ id: campaign.displayId, name: 'Spring', type: 'INORGANIC' });
    expect(data.campaign_data.installed_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const result = await app.inject({
      method: 'GET',
      url: '/api/v1/get-attribution-result?device_identifier=aaaa-bbbb',
      headers: p.headers,
    });
    expect(result.statusCode).toBe(200);
    expect(result.json().data).toMatchObject({
      display_id: campaign.displayId,
      attribution_type: 'INORGANIC',
      ad_set_id: 'as1',
      ad_set_name: 'Set 1',
      match: { method: 'play_referrer', click_id: clickId },
    });
  });

  it('when an iPhone installs from the IP that clicked, then it is matched probabilistically', async () => {
    const { app, deps, p, campaign } = await setup();
    const click = await app.inject({
      method: 'GET',
      url: `/?c=${campaign.displayId}`,
      headers: { host: 'attr.test', 'user-agent': IPHONE_UA },
      remoteAddress: '10.7.7.7',
    });
    expect(click.statusCode).toBe(302);
    await flushAllFacts(deps, FACT_TABLES);
    const iid = 'AbCdEfGhIjKlMnOpQrSt';
    await app.inject({
      method: 'POST',
      url: '/api/client/init',
      payload: {
        token: p.token,
        platform: 'IOS',
        install_instance_id: iid,
        device_data: { device: 'iPhone', system_version: '17.4.1', idfv: 'X-Y' },
      },
      remoteAddress: '10.7.7.7',
    });
    const decision = await attributeInstall(deps, { projectId: p.project.id, installInstanceId: iid });
    expect(decision).toMatchObject({ method: 'fingerprint', campaignId: campaign.id, attributionType: 'INORGANIC' });
    await flushAllFacts(deps, FACT_TABLES);
    const rs = await deps.ch.query({
      query: 'SELECT method, campaign_id, kind FROM attributions WHERE project_id = {p:String}',
      format: 'JSONEachRow',
      query_params: { p: p.project.id },
    });
    expect(await rs.json()).toEqual([{ method: 'fingerprint', campaign_id: campaign.id, kind: 'install' }]);
  });
});
