// Unsigned request bodies replayed byte for byte as the real SDKs serialize them (real-clients.md §1,
// §4.1, §4.2, §4.10, §5): Android (AND-1.1, Retrofit + Gson: `charset=UTF-8`, `=`/`&`/`'`/`<`/`>` as
// \u003d-style escapes, Java doubles `2.0` and `1.25E7`, nulls omitted, a carrier array, the Play
// install_ref_* fields) and iOS 4.0.1 (JSONSerialization: `/` escaped as `\/`, an Optional stored as
// Any sent as JSON null, a 20-character install id, device_display, no idfa without ATT). Every
// answer must be a 2xx JSON object; the tests also check what got stored. Signed replays live in
// signing.test.ts.
import { randomInt, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { processingIdFor } from '../../../src/domain/identity/register-install.ts';
import {
  ANDROID_UA,
  attribute,
  campaignWithListings,
  clickLink,
  flushFacts,
  installEvents,
  installRows,
  post,
  randomIp,
} from '../../support/client.ts';
import { newProject, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

const ANDROID_HEADERS = {
  'content-type': 'application/json; charset=UTF-8',
  'user-agent': 'okhttp/4.12.0',
  'accept-encoding': 'gzip',
};
const IOS_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json',
  'user-agent': 'Shop/20 CFNetwork/1494.0.7 Darwin/23.4.0',
  'accept-encoding': 'gzip, deflate, br',
  'accept-language': 'en-US,en;q=0.9',
};
const ACCEPTED = { status: 'accepted', message: 'Install event accepted for processing', success: true };

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** iOS Linkrunner.swift getLinkRunnerInstallInstanceId: 20 random [A-Za-z0-9] characters. */
const iosInstallId = () => Array.from({ length: 20 }, () => BASE62[randomInt(BASE62.length)]).join('');

/** A whole number of seconds as Java's Double.toString prints it (1767225630 → "1.76722563E9"). */
function javaDouble(seconds: number): string {
  const digits = String(seconds);
  const fraction = digits.slice(1).replace(/0+$/, '');
  return `${digits[0]}.${fraction === '' ? '0' : fraction}E${digits.length - 1}`;
}

/** AND-1.1 init: Gson output of InitRequest with DeviceInfoProvider's map (nulls omitted). */
function androidInit(token: string, iid: string, installRef: string, extra = ''): string {
  return String.raw`{"token":"${token}","package_version":"1.1.3","app_version":"2.0","device_data":{"application_name":"Tom\u0027s \u003cShop\u003e","app_version":"2.0","build_number":"20","bundle_id":"com.example.shop","version":"2.0","device_id":"9774D56D682E549C","device_name":"samsung SM-S911B","manufacturer":"samsung","brand":"samsung","system_version":"14","connectivity":"Wi-Fi","user_agent":"Mozilla/5.0 (Linux; Android 14; SM-S911B Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0.6367.82 Mobile Safari/537.36","gaid":"38400000-8CF0-11BD-B23E-10B96E40000D","idfa":"","idfv":"","carrier":["Jio 4G"],"device_ip":"192.168.1.23","install_ref":"${installRef}","install_ref_url":"","install_ref_hashCode":-1839393829,"install_ref_install_version":"","install_ref_referrerClickTimestampSeconds":0,"referrerClickTimestampServerSeconds":0,"install_ref_googlePlayInstantParam":false,"screen_density":2.0,"available_storage":1.25E7${extra}},"platform":"ANDROID","install_instance_id":"${iid}","source":"GENERAL"}`;
}

/** iOS 4.0.1 DeviceData.toDictionary through JSONSerialization (no idfa: ATT not authorized). */
function iosDeviceData(iid: string): string {
  return String.raw`{"device":"iPhone","device_name":"iPhone","system_version":"17.4.1","brand":"Apple","manufacturer":"Apple","connectivity":"wifi","device_display":{"width":393,"height":852,"scale":3},"install_instance_id":"${iid}","bundle_id":"com.example.shop","version":"2.0","build_number":"20","idfv":"6D2E8F3A-1B4C-4D5E-9F60-7A8B9C0D1E2F","locale":"en_US","language":"en","country":"US","timezone":"America\/New_York","timezone_offset":-240,"user_agent":"Linkrunner-iOS\/2.0 (iPhone; iOS 17.4.1; Build\/20)","adservices_attribution_token":null}`;
}

function iosInit(token: string, iid: string): string {
  return `{"install_instance_id":"${iid}","token":"${token}","platform":"IOS","debug":false,"source":"GENERAL","device_data":${iosDeviceData(iid)},"package_version":"4.0.1","app_version":"2.0","link":null}`;
}

function send(path: string, body: string, headers: Record<string, string>, ip = randomIp()) {
  return post(h(), path, body, { headers, remoteAddress: ip });
}

describe('Android (AND-1.1, Gson)', () => {
  it('when an organic Play install inits with Gson escapes and Java doubles, then 202 and every value is stored decoded', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = randomUUID();
    const body = androidInit(
      p.token,
      iid,
      String.raw`utm_source\u003dgoogle-play\u0026utm_medium\u003dorganic`,
      ',"install_ref_installBeginTimestampSeconds":1736942400,"installBeginTimestampServerSeconds":1736942401',
    );

    const res = await send('init', body, ANDROID_HEADERS, '203.0.113.7');

    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ processing_id: processingIdFor(p.project.id, iid), ...ACCEPTED });
    const [row] = await installRows(deps, p);
    expect(row).toMatchObject({
      platform: 'ANDROID',
      ip: '203.0.113.7',
      gaid: '38400000-8cf0-11bd-b23e-10b96e40000d',
      android_id: '9774d56d682e549c',
      idfa: null,
      os: 'Android',
      os_version: '14',
      device_model: 'samsung SM-S911B',
      app_version: '2.0',
      package_version: '1.1.3',
      install_ref: 'utm_source=google-play&utm_medium=organic',
      install_begin_at: new Date(1_736_942_400_000),
      user_agent: expect.stringContaining('SM-S911B Build/UP1A'),
    });
    expect(row?.device_data).toMatchObject({
      application_name: "Tom's <Shop>",
      carrier: ['Jio 4G'],
      screen_density: 2,
      available_storage: 12_500_000,
      install_ref_hashCode: -1_839_393_829,
      install_ref_googlePlayInstantParam: false,
    });
    expect(await attribute(h(), p, iid)).toMatchObject({ method: 'organic', attributionType: 'ORGANIC' });
    await flushFacts(h());
    expect(await installEvents(deps, p)).toEqual([{ install_instance_id: iid, kind: 'install' }]);
  });

  it('when the Play referrer carries lr_click_id\\u003d<id> and the timestamps are doubles, then the click is matched', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const campaign = await campaignWithListings(deps, p);
    const { clickId } = await clickLink(h(), campaign, { ip: randomIp(), userAgent: ANDROID_UA, agoMs: 90_000 });
    await flushFacts(h());
    const iid = randomUUID();
    const begin = Math.floor(Date.now() / 1000) - 30;
    const body = androidInit(
      p.token,
      iid,
      String.raw`utm_source\u003dmeta\u0026lr_click_id\u003d${clickId}\u0026utm_campaign\u003dspring`,
      `,"install_ref_installBeginTimestampSeconds":${javaDouble(begin)},"installBeginTimestampServerSeconds":${javaDouble(begin + 1)}`,
    );

    const res = await send('init', body, ANDROID_HEADERS);
    const decision = await attribute(h(), p, iid);
    const data = await send(
      'attribution-data',
      String.raw`{"token":"${p.token}","platform":"ANDROID","install_instance_id":"${iid}","device_data":{"install_ref":"utm_source\u003dmeta\u0026lr_click_id\u003d${clickId}","gaid":"38400000-8CF0-11BD-B23E-10B96E40000D"}}`,
      ANDROID_HEADERS,
    );

    expect(res.statusCode).toBe(202);
    expect((await installRows(deps, p))[0]).toMatchObject({
      install_ref: `utm_source=meta&lr_click_id=${clickId}&utm_campaign=spring`,
      install_begin_at: new Date(begin * 1000),
    });
    expect(decision).toMatchObject({ method: 'play_referrer', campaignId: campaign.id, suspicious: false });
    expect(decision?.click?.clickId).toBe(clickId);
    expect(data.statusCode).toBe(200);
    expect(data.json()).toMatchObject({
      msg: 'Attribution data fetched successfully',
      status: 200,
      data: { deeplink: 'myapp://promo/spring', campaign_data: { id: campaign.displayId, type: 'INORGANIC' } },
    });
  });

  it('when the init link arrives Gson-escaped (\\u003d, \\u0026), then it is read as the campaign link', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const campaign = await campaignWithListings(deps, p);
    const iid = randomUUID();
    const body = androidInit(p.token, iid, '').replace(
      '"source":"GENERAL"',
      String.raw`"link":"https://attr.test/?c\u003d${campaign.displayId}\u0026utm_source\u003dpush","source":"GENERAL"`,
    );

    const res = await send('init', body, ANDROID_HEADERS);

    expect(res.statusCode).toBe(202);
    expect((await installRows(deps, p))[0]?.init_link).toBe(
      `https://attr.test/?c=${campaign.displayId}&utm_source=push`,
    );
    expect(await attribute(h(), p, iid)).toMatchObject({ method: 'link', campaignId: campaign.id });
  });
});

describe('iOS (4.0.1, JSONSerialization)', () => {
  it('when iOS inits with \\/ escapes, nulls, a 20-character id and no idfa, then 202 and it is stored decoded', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = iosInstallId();

    const res = await send('init', iosInit(p.token, iid), IOS_HEADERS, '198.51.100.20');

    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ processing_id: processingIdFor(p.project.id, iid), ...ACCEPTED });
    const [row] = await installRows(deps, p);
    expect(row).toMatchObject({
      install_instance_id: iid,
      platform: 'IOS',
      ip: '198.51.100.20',
      gaid: null,
      idfa: null,
      idfv: '6d2e8f3a-1b4c-4d5e-9f60-7a8b9c0d1e2f',
      os: 'iOS',
      os_version: '17.4.1',
      device_model: 'iPhone',
      user_agent: 'Linkrunner-iOS/2.0 (iPhone; iOS 17.4.1; Build/20)',
      package_version: '4.0.1',
      init_link: null,
      apple_ads_token: null,
      install_ref: '',
    });
    expect(row?.device_data).toMatchObject({
      timezone: 'America/New_York',
      device_display: { width: 393, height: 852, scale: 3 },
      adservices_attribution_token: null,
    });
    // install facts carry the install's attribution, so they reach ClickHouse once it is decided
    await attribute(h(), p, iid);
    await flushFacts(h());
    expect(await installEvents(deps, p)).toEqual([{ install_instance_id: iid, kind: 'install' }]);
  });

  it('when iOS polls attribution-data with debug, then a JSON object answers both while pending and once decided', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = iosInstallId();
    await send('init', iosInit(p.token, iid), IOS_HEADERS);
    const poll = `{"token":"${p.token}","platform":"IOS","install_instance_id":"${iid}","device_data":${iosDeviceData(iid)},"debug":true}`;

    const pending = await send('attribution-data', poll, IOS_HEADERS);
    await attribute(h(), p, iid);
    const decided = await send('attribution-data', poll, IOS_HEADERS);

    expect(pending.statusCode).toBe(200);
    expect(pending.json()).toEqual({
      msg: 'Attribution is still being processed. Poll again shortly.',
      status: 200,
      data: { deeplink: null, campaign_data: null, attribution_source: 'PENDING', processing: true },
    });
    expect(decided.json()).toEqual({
      msg: 'Attribution data fetched successfully',
      status: 200,
      data: { deeplink: null, campaign_data: null, attribution_source: 'ORGANIC' },
    });
  });

  it('when iOS reports an https:\\/\\/ campaign deeplink with a timestamp, then it is recognised and attributes the install', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const campaign = await campaignWithListings(deps, p);
    const iid = iosInstallId();
    await send('init', iosInit(p.token, iid), IOS_HEADERS);
    const body = String.raw`{"token":"${p.token}","platform":"IOS","install_instance_id":"${iid}","deeplink_url":"https:\/\/attr.test\/${campaign.displayId}?utm_source=push","device_data":${iosDeviceData(iid)},"timestamp":${Date.now()}}`;

    const res = await send('handle-deeplink', body, IOS_HEADERS);
    const decision = await attribute(h(), p, iid);
    const data = await send(
      'attribution-data',
      `{"token":"${p.token}","platform":"IOS","install_instance_id":"${iid}","device_data":${iosDeviceData(iid)},"debug":false}`,
      IOS_HEADERS,
    );

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      msg: 'Deeplink processed successfully',
      status: 200,
      data: { deeplink: 'myapp://promo/spring', is_linkrunner: true, processing: true },
    });
    expect((await installRows(deps, p))[0]?.init_link).toBe(`https://attr.test/${campaign.displayId}?utm_source=push`);
    expect(decision).toMatchObject({ method: 'link', campaignId: campaign.id });
    expect(data.json().data).toMatchObject({
      deeplink: 'myapp://promo/spring',
      campaign_data: { id: campaign.displayId, name: 'Spring', type: 'INORGANIC' },
    });
  });
});
