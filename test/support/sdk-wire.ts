// Request bodies as the real SDKs put them on the wire (real-clients.md §1-§6), sent byte for byte,
// optionally HMAC-signed the way iOS RequestSigningInterceptor.swift signs (sdk-sessions-*.test.ts,
// handle-deeplink-before-init.test.ts).
import { createHash, createHmac, randomInt } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type { Harness, TestProject } from './harness.ts';

export type Res = LightMyRequestResponse;
export type Key = { keyId: string; secret: string };

export const IOS_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json',
  'user-agent': 'Shop/20 CFNetwork/1494.0.7 Darwin/23.4.0',
  'accept-encoding': 'gzip, deflate, br',
  'accept-language': 'en-US,en;q=0.9',
};
export const ANDROID_HEADERS = {
  'content-type': 'application/json; charset=UTF-8',
  'user-agent': 'okhttp/4.12.0',
  'accept-encoding': 'gzip',
};

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** iOS getLinkRunnerInstallInstanceId: 20 random [A-Za-z0-9] characters. */
export const iosInstallId = (): string => Array.from({ length: 20 }, () => BASE62[randomInt(62)]).join('');

/** §2: Authorization HMAC, x-Key-Id, x-Timestamp (ms), x-Signature = b64(HMAC(secret, ts\nb64(sha256(body)))). */
export function signedHeaders(body: string, key: Key, timestampMs = Date.now()): Record<string, string> {
  const bytes = Buffer.from(body, 'utf8');
  const contentHash = bytes.length === 0 ? '' : createHash('sha256').update(bytes).digest('base64');
  const signature = createHmac('sha256', Buffer.from(key.secret, 'utf8'))
    .update(`${timestampMs}\n${contentHash}`, 'utf8')
    .digest('base64');
  return { Authorization: 'HMAC', 'x-Key-Id': key.keyId, 'x-Timestamp': String(timestampMs), 'x-Signature': signature };
}

/** Sends `body` byte for byte to /api/client/<path>; signed when a key is given. */
export function send(
  h: Harness,
  path: string,
  body: string,
  opts: { headers: Record<string, string>; key?: Key; ip?: string },
): Promise<Res> {
  const sig = opts.key ? signedHeaders(body, opts.key) : {};
  return h.app.inject({
    method: 'POST',
    url: `/api/client/${path}`,
    headers: { ...opts.headers, ...sig },
    payload: body,
    remoteAddress: opts.ip ?? '10.9.9.9',
  }) as Promise<Res>;
}

/** iOS 4.0.1 DeviceData.toDictionary through JSONSerialization (no idfa: ATT not authorized). */
export function iosDeviceData(iid: string): string {
  return String.raw`{"device":"iPhone","device_name":"iPhone","system_version":"17.4.1","brand":"Apple","manufacturer":"Apple","connectivity":"wifi","device_display":{"width":393,"height":852,"scale":3},"install_instance_id":"${iid}","bundle_id":"com.example.shop","version":"2.0","build_number":"20","idfv":"6D2E8F3A-1B4C-4D5E-9F60-7A8B9C0D1E2F","locale":"en_US","language":"en","country":"US","timezone":"America\/New_York","timezone_offset":-240,"user_agent":"Linkrunner-iOS\/2.0 (iPhone; iOS 17.4.1; Build\/20)"}`;
}

/** The iOS 4.0.1 body of each client call (Linkrunner.swift), keys in one Dictionary order. */
export function iosBodies(p: TestProject, iid: string) {
  const dd = iosDeviceData(iid);
  const t = p.token;
  return {
    init: `{"install_instance_id":"${iid}","token":"${t}","platform":"IOS","debug":false,"source":"GENERAL","device_data":${dd},"package_version":"4.0.1","app_version":"2.0"}`,
    attributionData: `{"token":"${t}","platform":"IOS","install_instance_id":"${iid}","device_data":${dd},"debug":false}`,
    signup: (userId: string) =>
      `{"token":"${t}","user_data":{"id":"${userId}","name":"Jane","email":"jane@example.com","is_first_time_user":true,"user_created_at":"2024-08-12T20:59:03Z","mixpanel_distinct_id":"mp-1"},"platform":"IOS","install_instance_id":"${iid}","time_since_app_install":12.5,"data":{"plan":"pro","device_data":${dd}}}`,
    setUserData: (userId: string) =>
      `{"token":"${t}","user_data":{"id":"${userId}","phone":"+15550001111"},"device_data":${dd},"install_instance_id":"${iid}"}`,
    trackEvent: (name: string, eventData: string, extra = '') =>
      `{"token":"${t}","event_name":"${name}","event_data":${eventData},"device_data":${dd},"install_instance_id":"${iid}","time_since_app_install":30,"platform":"IOS"${extra}}`,
    capturePayment: (userId: string, amount: string, paymentId: string, extra = '') =>
      `{"token":"${t}","user_id":"${userId}","platform":"IOS","amount":${amount},"event_data":null,"install_instance_id":"${iid}","time_since_app_install":40,"payment_id":"${paymentId}","type":"DEFAULT","status":"PAYMENT_COMPLETED","data":{"device_data":${dd}}${extra}}`,
    removePayment: (userId: string, paymentId: string) =>
      `{"token":"${t}","user_id":"${userId}","platform":"IOS","install_instance_id":"${iid}","payment_id":"${paymentId}","data":{"device_data":${dd}}}`,
    pushToken: `{"token":"${t}","push_token":"${'ab12'.repeat(16)}","platform":"IOS","install_instance_id":"${iid}"}`,
    integrations: `{"token":"${t}","install_instance_id":"${iid}","integration_info":{"clevertap_id":"ct-123"},"platform":"IOS"}`,
    customerUserId: (userId: string) =>
      `{"token":"${t}","user_id":"${userId}","platform":"IOS","install_instance_id":"${iid}"}`,
    deeplink: (url: string) =>
      `{"token":"${t}","platform":"IOS","install_instance_id":"${iid}","deeplink_url":"${url}","device_data":${dd},"timestamp":${Date.now()}}`,
  };
}

/** AND-1.1 / RN-bridge device_data through Gson (nulls omitted, HTML-safe escapes, Java doubles). */
export function androidDeviceData(installRef: string, gaid: string): string {
  return `{"application_name":"Shop","app_version":"2.0","build_number":"20","bundle_id":"com.example.shop","version":"2.0","device_id":"9774d56d682e549c","device_name":"samsung SM-S911B","manufacturer":"samsung","brand":"samsung","system_version":"14","connectivity":"Wi-Fi","user_agent":"Mozilla/5.0 (Linux; Android 14; SM-S911B Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0.6367.82 Mobile Safari/537.36","gaid":"${gaid}","idfa":"","idfv":"","carrier":["Jio 4G"],"device_ip":"192.168.1.23","install_ref":"${installRef}","install_ref_url":"","install_ref_hashCode":-1839393829}`;
}

/** Gson's HTML-safe escaping of a referrer query string (= and &). */
export const gsonEscape = (s: string): string => s.replace(/=/g, '\\u003d').replace(/&/g, '\\u0026');

/** AND-1.1 request DTOs (plus the RN 2.10.1 bridge's "" for a JS null, doubles for JS numbers). */
export function androidBodies(p: TestProject, iid: string, dd: string) {
  const t = p.token;
  return {
    init: `{"token":"${t}","package_version":"3.8.1","app_version":"2.0","device_data":${dd},"platform":"ANDROID","install_instance_id":"${iid}","source":"GENERAL"}`,
    attributionData: `{"token":"${t}","platform":"ANDROID","install_instance_id":"${iid}","device_data":${dd}}`,
    signup: (userId: string) =>
      `{"token":"${t}","user_data":{"id":"${userId}","name":"","email":"","phone":"","is_first_time_user":true},"platform":"ANDROID","data":{"device_data":${dd},"plan":"pro"},"install_instance_id":"${iid}","event":"SIGNUP"}`,
    setUserData: (userId: string) =>
      `{"token":"${t}","user_data":{"id":"${userId}","name":"Ravi","email":""},"platform":"ANDROID","device_data":${dd},"install_instance_id":"${iid}"}`,
    trackEvent: (name: string, eventData: string, extra = '') =>
      `{"token":"${t}","event_name":"${name}","event_data":${eventData},"platform":"ANDROID","device_data":${dd},"install_instance_id":"${iid}"${extra}}`,
    capturePayment: (userId: string, amount: string, paymentId: string, typeStatus = '"type":"","status":""') =>
      `{"token":"${t}","platform":"ANDROID","data":{"device_data":${dd}},"payment_id":"${paymentId}","user_id":"${userId}","amount":${amount},${typeStatus},"install_instance_id":"${iid}"}`,
    removePayment: (userId: string, paymentId: string) =>
      `{"token":"${t}","platform":"ANDROID","data":{"device_data":${dd}},"payment_id":"${paymentId}","user_id":"${userId}","install_instance_id":"${iid}"}`,
    legacyPushToken: `{"token":"${t}","platform":"ANDROID","push_token":"fcm:APA91b-Example_token-123","device_data":${dd},"install_instance_id":"${iid}"}`,
    integrations: `{"token":"${t}","install_instance_id":"${iid}","integration_info":{"clevertap_id":"ct-9"},"platform":"ANDROID"}`,
    deeplink: (url: string) =>
      `{"token":"${t}","platform":"ANDROID","install_instance_id":"${iid}","deeplink_url":"${url}","device_data":${dd}}`,
  };
}

/** GET /api/v1/attributed-users?display_id=… */
export async function attributedUsers(h: Harness, p: TestProject, displayId: string) {
  const res = await h.app.inject({
    method: 'GET',
    url: `/api/v1/attributed-users?display_id=${displayId}`,
    headers: p.headers,
  });
  return res;
}
