// POST /web/ingest refusals and CORS (README "Web SDK"): a web page on the customer's origin reads
// every answer, so each one echoes its Origin with credentials allowed (the SDK's sendBeacon is a
// credentialed request, which `*` fails) and the preflight answers 204.
// A missing or unknown token is 401 with the client routes' text; a bad field a 400 naming it;
// an encrypted (lrv) body a 400 saying this server cannot open it; bodies over
// BODY_LIMIT_CLIENT_BYTES 413; other content types 415. Nothing refused is stored.
import { describe, expect, it } from 'vitest';
import { MSG } from '../../../src/http/messages.ts';
import { useClientHarness } from '../../support/client.ts';
import { outboxCount } from '../../support/commerce.ts';
import { newProject } from '../../support/harness.ts';
import { PAGE_ORIGIN, postWeb, sdkPageView, stored, TRANSPORT_HEADERS } from '../../support/web.ts';

const h = useClientHarness();

const bad = (msg: string) => ({ msg, status: 400 });
const TOKEN_401 = { msg: 'Invalid or missing project token.', status: 401 };
const SEALED =
  'Encrypted Web SDK payloads (lrv envelopes) are not supported by this server: it holds no private key to open them. Use a Web SDK build without publicKey / keyId.';

describe('CORS', () => {
  it('when a page preflights /web/ingest or /web/collect, then 204 allows a credentialed POST from its origin with the asked headers', async () => {
    for (const url of ['/web/ingest', '/web/collect']) {
      const res = await h().app.inject({
        method: 'OPTIONS',
        url,
        headers: {
          origin: PAGE_ORIGIN,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });

      expect(res.statusCode, url).toBe(204);
      expect(res.body).toBe('');
      expect(res.headers).toMatchObject({
        'access-control-allow-origin': PAGE_ORIGIN,
        'access-control-allow-credentials': 'true',
        vary: 'Origin',
        'access-control-allow-methods': 'POST, OPTIONS',
        'access-control-allow-headers': 'content-type',
        'access-control-max-age': '86400',
      });
    }
  });

  it('when a page preflights its sendBeacon Blob (credentials included), then the answer names its origin', async () => {
    // A beacon always goes with credentials (Beacon spec) and an application/json Blob is
    // preflighted; the Fetch CORS check then fails on `*`, and the SDK never learns the event is lost.
    const res = await h().app.inject({
      method: 'OPTIONS',
      url: '/web/ingest',
      headers: {
        origin: PAGE_ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
        'sec-fetch-mode': 'cors',
      },
    });

    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(PAGE_ORIGIN);
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    expect(res.headers.vary).toBe('Origin');
  });

  it('when the beacon itself arrives, then its answer passes the credentialed CORS check too', async () => {
    const p = await newProject(h().deps);

    const res = await postWeb(h(), sdkPageView(p.token), { headers: TRANSPORT_HEADERS.beacon });

    expect(res.json()).toEqual(stored);
    expect(res.headers).toMatchObject({
      'access-control-allow-origin': PAGE_ORIGIN,
      'access-control-allow-credentials': 'true',
      vary: 'Origin',
    });
  });

  it('when a request has no Origin or a malformed one, then the answer allows any origin, without credentials', async () => {
    const p = await newProject(h().deps);
    for (const origin of [undefined, 'https://shop.example.com/path', 'shop.example.com']) {
      const headers = { 'content-type': 'application/json', ...(origin === undefined ? {} : { origin }) };

      const res = await postWeb(h(), sdkPageView(p.token), { headers });

      expect(res.json(), String(origin)).toEqual(stored);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      expect(res.headers.vary).toBe('Origin');
    }
  });

  it('when the preflight asks for no headers or for a malformed list, then Content-Type is allowed', async () => {
    for (const asked of [undefined, 'content-type\r\nx: y', '']) {
      const res = await h().app.inject({
        method: 'OPTIONS',
        url: '/web/ingest',
        headers: { origin: PAGE_ORIGIN, ...(asked === undefined ? {} : { 'access-control-request-headers': asked }) },
      });

      expect(res.statusCode).toBe(204);
      expect(res.headers['access-control-allow-headers']).toBe('Content-Type');
    }
  });
});

describe('401', () => {
  it('when the token is missing, empty, not a string or unknown, then 401 with the client text and CORS', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    // The server key is no web token either (the page source is public; the key must never be).
    for (const token of [undefined, '', 42, 'lr_web_nope', `${p.token}x`, p.serverKey, p.token.toUpperCase()]) {
      const res = await postWeb(h(), sdkPageView(p.token, { token }));

      expect(res.statusCode, String(token)).toBe(401);
      expect(res.json()).toEqual(TOKEN_401);
      expect(res.headers['access-control-allow-origin']).toBe(PAGE_ORIGIN);
    }
    expect(MSG.clientTokenInvalid).toBe(TOKEN_401.msg);
    expect(await outboxCount(deps, p, 'web_events')).toBe(0);
  });
});

describe('400', () => {
  it('when event_type is missing, blank, not a string or too long, then 400 naming event_type', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    for (const eventType of [undefined, '', '  ', 7, 'x'.repeat(65)]) {
      const res = await postWeb(h(), sdkPageView(p.token, { event_type: eventType }));

      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual(bad('event_type must be a non-empty string of at most 64 characters.'));
      expect(res.headers['access-control-allow-origin']).toBe(PAGE_ORIGIN);
    }
    expect(await outboxCount(deps, p, 'web_events')).toBe(0);
  });

  it('when a field holds the wrong kind of value, then 400 naming that field', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const cases: [Record<string, unknown>, string][] = [
      [{ page_url: { href: 'x' } }, 'page_url must be a string.'],
      [{ utm_source: ['meta'] }, 'utm_source must be a string.'],
      [{ ft_gclid: {} }, 'ft_gclid must be a string.'],
      [{ screen_width: 'wide' }, 'screen_width must be a number.'],
      [{ timezone_offset: {} }, 'timezone_offset must be a number.'],
      [{ client_timestamp: { at: 1 } }, 'client_timestamp must be a string.'],
      [{ event_id: { id: 1 } }, 'event_id must be a string or number of at most 128 characters.'],
      [{ event_id: 'e'.repeat(129) }, 'event_id must be a string or number of at most 128 characters.'],
    ];
    for (const [fields, msg] of cases) {
      const res = await postWeb(h(), sdkPageView(p.token, fields));

      expect(res.statusCode, msg).toBe(400);
      expect(res.json()).toEqual(bad(msg));
    }
    expect(await outboxCount(deps, p, 'web_events')).toBe(0);
  });

  it('when the body is not JSON or not an object, then 400 with the body texts and CORS', async () => {
    const cases: [string, Record<string, string>, string][] = [
      ['{"token":', TRANSPORT_HEADERS.fetch, 'Invalid JSON body.'],
      ['not json', TRANSPORT_HEADERS.beaconText, 'Invalid JSON body.'],
      ['{"__proto__":{"x":1}}', TRANSPORT_HEADERS.fetch, 'Invalid JSON body.'],
      ['[1,2]', TRANSPORT_HEADERS.fetch, 'Request body must be a JSON object.'],
    ];
    for (const [payload, headers, msg] of cases) {
      const res = await postWeb(h(), payload, { headers });

      expect(res.statusCode, payload).toBe(400);
      expect(res.json()).toEqual(bad(msg));
      expect(res.headers['access-control-allow-origin']).toBe(PAGE_ORIGIN);
    }
  });

  it('when the SDK sends an encrypted envelope, then 400 says this server cannot open it, and nothing is stored', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const envelope = { lrv: 1, kid: 'k1', epk: 'BA'.repeat(44), iv: 'aXYxMjM0NTY3ODkw', ct: 'c2VhbGVk' };

    const res = await postWeb(h(), envelope);

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(bad(SEALED));
    expect(res.headers['access-control-allow-origin']).toBe(PAGE_ORIGIN);
    expect(await outboxCount(deps, p, 'web_events')).toBe(0);
  });
});

describe('413 and 415', () => {
  it('when the body is over BODY_LIMIT_CLIENT_BYTES, then 413 with CORS and nothing stored', async () => {
    const { deps } = h();
    const p = await newProject(deps);

    const res = await postWeb(h(), sdkPageView(p.token, { event_data: 'x'.repeat(70 * 1024) }));

    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ msg: 'Request body too large.', status: 413 });
    expect(res.headers['access-control-allow-origin']).toBe(PAGE_ORIGIN);
    expect(await outboxCount(deps, p, 'web_events')).toBe(0);
  });

  it('when the body comes as a form, then 415 with CORS', async () => {
    const { deps } = h();
    const p = await newProject(deps);

    const res = await postWeb(h(), `token=${p.token}&event_type=page_view`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: PAGE_ORIGIN },
    });

    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ msg: 'Unsupported content type. Send application/json.', status: 415 });
    expect(res.headers['access-control-allow-origin']).toBe(PAGE_ORIGIN);
  });
});

describe('OpenAPI', () => {
  it('when /openapi.json is fetched, then it documents POST and OPTIONS of /web/ingest and /web/collect', async () => {
    const doc = (await h().app.inject({ method: 'GET', url: '/openapi.json' })).json();

    for (const path of ['/web/ingest', '/web/collect']) {
      expect(Object.keys(doc.paths[path] ?? {}).sort()).toEqual(['options', 'post']);
      expect(Object.keys(doc.paths[path].post.responses)).toEqual(
        expect.arrayContaining(['200', '400', '401', '413', '415', '429', '500', '503']),
      );
      expect(doc.paths[path].post.requestBody.content['application/json'].schema.required).toEqual([
        'token',
        'event_type',
      ]);
    }
  });
});
