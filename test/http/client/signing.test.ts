// SDK request signing on /api/client (real-clients §1, §2): the HMAC is checked over the exact bytes
// the SDK sent (iOS `\/` escapes and random key order; Android Gson `\u003d` escapes and `2.0`
// numbers), so every body here is a string we sign and send byte for byte. Unsigned requests pass
// unless the project enforces signing; a present but wrong signature is refused either way.
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSigningKey } from '../../../src/domain/projects/create-signing-key.ts';
import { revokeSigningKey } from '../../../src/domain/projects/revoke-signing-key.ts';
import { setSigningEnforcement } from '../../../src/domain/projects/set-signing-enforcement.ts';
import { newProject, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

const INVALID = { msg: 'Invalid request signature.', status: 401 };
const REQUIRED = { msg: 'Request signature required.', status: 401 };
const IOS_JSON = 'application/json';
const ANDROID_JSON = 'application/json; charset=UTF-8';

type Key = { keyId: string; secret: string };

/** The headers the iOS SDK sets (RequestSigningInterceptor.swift), computed as §2 describes. */
function signedHeaders(body: string, key: Key, timestampMs = Date.now()): Record<string, string> {
  const bytes = Buffer.from(body, 'utf8');
  const contentHash = bytes.length === 0 ? '' : createHash('sha256').update(bytes).digest('base64');
  const signature = createHmac('sha256', Buffer.from(key.secret, 'utf8'))
    .update(`${timestampMs}\n${contentHash}`, 'utf8')
    .digest('base64');
  return { Authorization: 'HMAC', 'x-Key-Id': key.keyId, 'x-Timestamp': String(timestampMs), 'x-Signature': signature };
}

async function post(path: string, body: string, headers: Record<string, string> = {}, contentType = IOS_JSON) {
  return h().app.inject({
    method: 'POST',
    url: `/api/client/${path}`,
    headers: { 'content-type': contentType, ...headers },
    payload: body,
  });
}

async function setup(opts: { enforce?: boolean } = {}) {
  const { deps } = h();
  const p = await newProject(deps);
  const ios = await createSigningKey(deps, p.project.id, { platform: 'IOS' });
  const android = await createSigningKey(deps, p.project.id, { platform: 'ANDROID' });
  if (opts.enforce) {
    await setSigningEnforcement(deps, p.project.id, { enforce: 'true' });
  }
  return { deps, p, ios, android };
}

const iosId = () => randomUUID().replace(/-/g, '').slice(0, 20);

/** As JSONSerialization writes it: compact, `/` escaped, null kept, keys in Dictionary order. */
const iosInit = (token: string, iid: string) =>
  `{"package_version":"4.0.1","device_data":{"idfv":"6F9A2B3C-1D2E-4F5A-8B9C-0D1E2F3A4B5C","idfa":null,"device":"iPhone15,2","system_version":"17.4.1","bundle_url":"https:\\/\\/apps.example.com\\/app\\/id123"},"platform":"IOS","token":"${token}","source":"GENERAL","install_instance_id":"${iid}","debug":false,"app_version":"1.0"}`;
const iosAttribution = (token: string, iid: string) =>
  `{"debug":false,"install_instance_id":"${iid}","token":"${token}","device_data":{"device":"iPhone15,2","homepage":"https:\\/\\/example.com\\/"},"platform":"IOS"}`;

/** As Gson writes it: HTML-safe escapes (= & < > '), Java doubles, nulls left out. */
const androidInit = (token: string, iid: string) =>
  `{"token":"${token}","package_version":"3.8.1","app_version":"2.1.0","device_data":{"install_ref":"utm_source\\u003dgoogle-play\\u0026utm_medium\\u003dorganic","gaid":"38400000-8cf0-11bd-b23e-10b96e40000d","device_name":"samsung SM-S911B","screen_density":2.0,"install_ref_installBeginTimestampSeconds":1.7520000E9,"note":"\\u003cb\\u003e\\u0027hi\\u0027\\u003c/b\\u003e"},"platform":"ANDROID","install_instance_id":"${iid}"}`;
const androidAttribution = (token: string, iid: string) =>
  `{"token":"${token}","platform":"ANDROID","install_instance_id":"${iid}","device_data":{"install_ref":"a\\u003d1\\u0026b\\u003d2","battery":0.5,"volume":2.0}}`;

async function installRow(projectId: string, iid: string) {
  const [row] = await h().deps.sql<{ install_ref: string; device_data: Record<string, unknown> }[]>`
    SELECT install_ref, device_data FROM installs WHERE project_id = ${projectId} AND install_instance_id = ${iid}`;
  return row;
}

describe('signed requests (200 / 202)', () => {
  it('when an iOS-style body with \\/ escapes is signed with the iOS key, then init answers 202 and stores the decoded values', async () => {
    const { p, ios } = await setup();
    const iid = iosId();
    const body = iosInit(p.token, iid);

    const res = await post('init', body, signedHeaders(body, ios));

    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ status: 'accepted', success: true });
    const row = await installRow(p.project.id, iid);
    expect(row?.device_data.bundle_url).toBe('https://apps.example.com/app/id123');
  });

  it('when an iOS-style attribution-data body is signed, then 200', async () => {
    const { p, ios } = await setup();
    const iid = iosId();
    const init = iosInit(p.token, iid);
    await post('init', init, signedHeaders(init, ios));
    const body = iosAttribution(p.token, iid);

    const res = await post('attribution-data', body, signedHeaders(body, ios));

    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ attribution_source: 'PENDING', campaign_data: null });
  });

  it('when an Android-style body with Gson escapes and 2.0 numbers is signed with the Android key, then init answers 202 and the referrer arrives decoded', async () => {
    const { p, android } = await setup();
    const iid = randomUUID();
    const body = androidInit(p.token, iid);

    const res = await post('init', body, signedHeaders(body, android), ANDROID_JSON);

    expect(res.statusCode).toBe(202);
    const row = await installRow(p.project.id, iid);
    expect(row?.install_ref).toBe('utm_source=google-play&utm_medium=organic');
    expect(row?.device_data.note).toBe("<b>'hi'</b>");
  });

  it('when an Android-style attribution-data body is signed, then 200', async () => {
    const { p, android } = await setup();
    const iid = randomUUID();
    const init = androidInit(p.token, iid);
    await post('init', init, signedHeaders(init, android), ANDROID_JSON);
    const body = androidAttribution(p.token, iid);

    const res = await post('attribution-data', body, signedHeaders(body, android), ANDROID_JSON);

    expect(res.statusCode).toBe(200);
  });

  it('when the project enforces signing and the request is signed, then it is accepted', async () => {
    const { p, ios } = await setup({ enforce: true });
    const body = iosInit(p.token, iosId());

    const res = await post('init', body, signedHeaders(body, ios));

    expect(res.statusCode).toBe(202);
  });

  it('when the body has no platform, then either key of the project verifies it', async () => {
    const { p, android } = await setup({ enforce: true });
    const body = `{"token":"${p.token}","install_instance_id":"${randomUUID()}"}`;

    const res = await post('init', body, signedHeaders(body, android), ANDROID_JSON);

    expect(res.statusCode).toBe(202);
  });

  it('when the timestamp is 4 minutes old (retry after a slow network), then it is accepted', async () => {
    const { p, ios } = await setup();
    const body = iosInit(p.token, iosId());

    const res = await post('init', body, signedHeaders(body, ios, Date.now() - 4 * 60_000));

    expect(res.statusCode).toBe(202);
  });
});

describe('unsigned requests', () => {
  it('when the project does not enforce signing, then unsigned init and attribution-data are accepted', async () => {
    const { p } = await setup();
    const iid = iosId();

    const init = await post('init', iosInit(p.token, iid));
    const data = await post('attribution-data', iosAttribution(p.token, iid));

    expect(init.statusCode).toBe(202);
    expect(data.statusCode).toBe(200);
  });

  it('when the project enforces signing, then unsigned init is 401 Request signature required. and nothing is stored', async () => {
    const { p } = await setup({ enforce: true });
    const iid = iosId();

    const res = await post('init', iosInit(p.token, iid));

    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual(REQUIRED);
    expect(await installRow(p.project.id, iid)).toBeUndefined();
  });

  it('when the project enforces signing, then unsigned attribution-data is 401 Request signature required.', async () => {
    const { p } = await setup({ enforce: true });

    const res = await post('attribution-data', androidAttribution(p.token, randomUUID()), {}, ANDROID_JSON);

    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual(REQUIRED);
  });

  it('when enforcement is turned off again, then unsigned requests are accepted again', async () => {
    const { deps, p } = await setup({ enforce: true });
    await setSigningEnforcement(deps, p.project.id, { enforce: 'false' });

    const res = await post('init', iosInit(p.token, iosId()));

    expect(res.statusCode).toBe(202);
  });
});

describe('401 Invalid request signature.', () => {
  it.each([false, true])(
    'when the signature is wrong (enforce=%s), then init and attribution-data are 401',
    async (enforce) => {
      const { p, ios } = await setup({ enforce });
      const iid = iosId();
      const body = iosInit(p.token, iid);
      const headers = { ...signedHeaders(body, ios), 'x-Signature': signedHeaders('{}', ios)['x-Signature'] ?? '' };
      const dataBody = iosAttribution(p.token, iid);
      const dataHeaders = signedHeaders(dataBody, { keyId: ios.keyId, secret: 'not-the-secret' });

      const init = await post('init', body, headers);
      const data = await post('attribution-data', dataBody, dataHeaders);

      expect(init.statusCode).toBe(401);
      expect(init.json()).toEqual(INVALID);
      expect(data.statusCode).toBe(401);
      expect(data.json()).toEqual(INVALID);
      expect(await installRow(p.project.id, iid)).toBeUndefined();
    },
  );

  it('when the body was re-serialized after signing (escapes dropped), then 401', async () => {
    const { p, ios } = await setup();
    const signedBody = iosInit(p.token, iosId());
    const sent = JSON.stringify(JSON.parse(signedBody));

    const res = await post('init', sent, signedHeaders(signedBody, ios));

    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual(INVALID);
  });

  it('when the timestamp is more than 5 minutes old, then 401', async () => {
    const { p, ios } = await setup();
    const body = iosInit(p.token, iosId());

    const res = await post('init', body, signedHeaders(body, ios, Date.now() - 6 * 60_000));

    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual(INVALID);
  });

  it('when the timestamp is more than 5 minutes ahead, then 401', async () => {
    const { p, ios } = await setup();
    const body = iosInit(p.token, iosId());

    const res = await post('init', body, signedHeaders(body, ios, Date.now() + 6 * 60_000));

    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual(INVALID);
  });

  it("when the key id belongs to another project (correctly signed with that project's secret), then 401", async () => {
    const { p } = await setup();
    const other = await setup();
    const body = iosInit(p.token, iosId());

    const res = await post('init', body, signedHeaders(body, other.ios));

    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual(INVALID);
  });

  it('when the key id is unknown, then 401', async () => {
    const { p, ios } = await setup();
    const body = iosInit(p.token, iosId());

    const res = await post('init', body, signedHeaders(body, { keyId: 'lrk_doesnotexist000', secret: ios.secret }));

    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual(INVALID);
  });

  it("when an Android body is signed with the project's iOS key, then 401 (platform mismatch)", async () => {
    const { p, ios } = await setup();
    const body = androidInit(p.token, randomUUID());

    const res = await post('init', body, signedHeaders(body, ios), ANDROID_JSON);

    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual(INVALID);
  });

  it('when the key was revoked, then 401', async () => {
    const { deps, p, ios } = await setup();
    await revokeSigningKey(deps, p.project.id, ios.keyId);
    const body = iosInit(p.token, iosId());

    const res = await post('init', body, signedHeaders(body, ios));

    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual(INVALID);
  });

  it.each(['x-Key-Id', 'x-Timestamp', 'x-Signature'])(
    'when only %s is missing from the signing headers, then 401',
    async (missing) => {
      const { p, ios } = await setup();
      const body = iosInit(p.token, iosId());
      const headers = signedHeaders(body, ios);
      delete headers[missing];

      const res = await post('init', body, headers);

      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual(INVALID);
    },
  );

  it('when only Authorization: HMAC is sent, then 401 (a signing attempt without its parts)', async () => {
    const { p } = await setup();

    const res = await post('init', iosInit(p.token, iosId()), { Authorization: 'HMAC' });

    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual(INVALID);
  });

  it('when the token is bad, then the token error comes first (400 on init, 401 on attribution-data)', async () => {
    const { ios } = await setup();
    const body = iosInit('pt_unknown', iosId());

    const dataBody = iosAttribution('pt_unknown', iosId());

    const init = await post('init', body, signedHeaders(body, ios));
    const data = await post('attribution-data', dataBody, signedHeaders(dataBody, ios));

    expect(init.statusCode).toBe(400);
    expect(init.json()).toEqual({ msg: 'Invalid or missing project token.', status: 400 });
    expect(data.statusCode).toBe(401);
    expect(data.json()).toEqual({ msg: 'Invalid or missing project token.', status: 401 });
  });
});
