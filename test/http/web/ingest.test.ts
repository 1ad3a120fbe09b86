// POST /web/ingest (the Web SDK @linkrunner/web; real-clients §7): what the real SDK sends, by
// each of its transports (fetch, a sendBeacon Blob, XHR, and a beacon of a plain string), is
// answered 200 once durable in the outbox and lands as one web_events row after the fact writer
// drains it, with the page, attribution, device and timing fields; unknown fields are ignored,
// text is cut at its cap and numbers are clamped. Pages running bundles cached before the SDK moved
// off /web/collect post there, which answers the same.
import { describe, expect, it } from 'vitest';
import { setSigningEnforcement } from '../../../src/domain/projects/set-signing-enforcement.ts';
import { flushFacts, useClientHarness } from '../../support/client.ts';
import { outboxCount } from '../../support/commerce.ts';
import { newProject } from '../../support/harness.ts';
import {
  CHROME_MAC_UA,
  PAGE_ORIGIN,
  postWeb,
  sdkCustomEvent,
  sdkPageView,
  stored,
  TRANSPORT_HEADERS,
  webRows,
} from '../../support/web.ts';

const h = useClientHarness();

describe('200 stored', () => {
  it('when the SDK sends a page view by fetch, then 200 and one web_events row holding what it sent', async () => {
    const { deps } = h();
    const p = await newProject(deps, { timezone: 'Asia/Kolkata' });
    const body = sdkPageView(p.token);

    const res = await postWeb(h(), body);

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(stored);
    expect(res.headers['access-control-allow-origin']).toBe(PAGE_ORIGIN);
    expect(await outboxCount(deps, p, 'web_events')).toBe(1);
    await flushFacts(h());
    expect(await webRows(deps, p)).toEqual([
      expect.objectContaining({
        event_id: body.event_id,
        project_id: p.project.id,
        project_tz: 'Asia/Kolkata',
        client_ts: '2026-11-28 10:15:30.123',
        event_type: 'page_view',
        event_name: '',
        event_data: '',
        visitor_id: body.visitor_id,
        session_id: body.session_id,
        user_id: '',
        is_new_visitor: 1,
        page_url: body.page_url,
        page_path: '/pricing',
        page_title: 'Pricing – Shop',
        page_search: body.page_search,
        canonical_url: `${PAGE_ORIGIN}/pricing`,
        entry_page: body.entry_page,
        session_page_count: 1,
        document_referrer: 'https://www.facebook.com/',
        referring_domain: 'www.facebook.com',
        traffic_source_type: 'paid_social',
        traffic_source_name: 'meta',
        ft_traffic_source_type: 'paid_social',
        utm_source: 'meta',
        utm_campaign: 'launch',
        utm_medium: '',
        ft_utm_source: 'meta',
        fbclid: 'IwAR0abc',
        ft_fbclid: 'IwAR0abc',
        fbc: 'fb.1.1764324930123.IwAR0abc',
        gclid: '',
        ip: '203.0.113.7',
        user_agent: CHROME_MAC_UA,
        is_bot: 0,
        language: 'en-US',
        languages: '["en-US","en"]',
        timezone: 'Asia/Kolkata',
        timezone_offset: -330,
        navigator_platform: 'MacIntel',
        screen_width: 1512,
        screen_height: 982,
        screen_color_depth: 30,
        viewport_width: 1512,
        viewport_height: 857,
        device_pixel_ratio: 2,
        connection_type: '4g',
        cookies_enabled: 1,
        hardware_concurrency: 10,
        device_memory: 8,
        page_load_time: 812,
        dom_content_loaded: 402,
        tcp_connection_time: 21,
        ttfb: 96,
        dom_interactive: 388,
      }),
    ]);
  });

  it('when a sendBeacon Blob, a beacon of a string (text/plain) and an XHR each carry an event, then all three are stored', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const sent = [
      [sdkPageView(p.token, { client_timestamp: '2026-11-28T10:00:01.000Z' }), TRANSPORT_HEADERS.beacon],
      [sdkPageView(p.token, { client_timestamp: '2026-11-28T10:00:02.000Z' }), TRANSPORT_HEADERS.beaconText],
      [
        sdkPageView(p.token, { client_timestamp: '2026-11-28T10:00:03.000Z' }),
        { ...TRANSPORT_HEADERS.xhr, 'content-type': 'application/json; charset=UTF-8' },
      ],
    ] as const;

    const answers = [];
    for (const [body, headers] of sent) {
      answers.push(await postWeb(h(), body, { headers }));
    }

    expect(answers.map((r) => [r.statusCode, r.json()])).toEqual([
      [200, stored],
      [200, stored],
      [200, stored],
    ]);
    await flushFacts(h());
    expect((await webRows(deps, p)).map((r) => r.event_id)).toEqual(sent.map(([b]) => b.event_id));
  });

  it('when lr.track and lr.identify events arrive, then event_data is kept as the JSON string sent and user_id is stored', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const purchase = sdkCustomEvent(
      p.token,
      'purchase',
      { plan: 'prö', amount: 4999 },
      {
        client_timestamp: '2026-11-28T10:00:01.000Z',
      },
    );
    const identify = sdkPageView(p.token, {
      event_type: 'identify',
      event_name: 'identify',
      user_id: 'customer-42',
      client_timestamp: '2026-11-28T10:00:02.000Z',
    });

    expect((await postWeb(h(), purchase)).json()).toEqual(stored);
    expect((await postWeb(h(), identify)).json()).toEqual(stored);

    await flushFacts(h());
    const rows = await webRows(deps, p);
    expect(rows.map((r) => [r.event_type, r.event_name, r.event_data, r.user_id])).toEqual([
      ['custom', 'purchase', '{"plan":"prö","amount":4999}', ''],
      ['identify', 'identify', '', 'customer-42'],
    ]);
  });

  it('when a page of a cached older bundle posts to /web/collect, then it is stored the same way', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const body = sdkPageView(p.token);

    const res = await postWeb(h(), body, { path: '/web/collect', headers: TRANSPORT_HEADERS.beacon });

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(stored);
    await flushFacts(h());
    expect((await webRows(deps, p)).map((r) => r.event_id)).toEqual([body.event_id]);
  });

  it('when fields are unknown, null, numbers as text, text as numbers, too long or out of range, then they are read tolerantly', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const body = sdkPageView(p.token, {
      sdk_version: '9.9.9',
      brand_new_field: { nested: true },
      page_title: null,
      event_name: 12,
      screen_width: '1920',
      is_bot: true,
      session_page_count: -4,
      touch_support: 1e12,
      page_url: `${PAGE_ORIGIN}/${'a'.repeat(5000)}`,
      user_agent: 'U'.repeat(2000),
      client_timestamp: 'yesterday',
      event_id: 12345,
    });

    const res = await postWeb(h(), body);

    expect(res.json()).toEqual(stored);
    await flushFacts(h());
    const [row] = await webRows(deps, p);
    expect(row).toMatchObject({
      event_id: '12345',
      page_title: '',
      event_name: '12',
      screen_width: 1920,
      is_bot: 1,
      session_page_count: 0,
      touch_support: 65535,
      client_ts: '1970-01-01 00:00:00.000',
    });
    expect(String(row?.page_url)).toHaveLength(4096);
    expect(String(row?.user_agent)).toHaveLength(1024);
    expect(Object.keys(row ?? {})).not.toContain('sdk_version');
  });

  it('when a number is past the double range (1e400, as a JSON number or its text), then it is clamped and the event stored', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const bodies = [
      `{"token":"${p.token}","event_type":"page_view","client_timestamp":"2026-11-28T10:00:01.000Z","screen_width":1e400,"timezone_offset":-1e400}`,
      `{"token":"${p.token}","event_type":"page_view","client_timestamp":"2026-11-28T10:00:02.000Z","screen_width":"1e400","timezone_offset":"-1e400"}`,
    ];

    const answers = [];
    for (const body of bodies) {
      answers.push(await postWeb(h(), body));
    }

    expect(answers.map((r) => r.json())).toEqual([stored, stored]);
    await flushFacts(h());
    expect((await webRows(deps, p)).map((r) => [r.screen_width, r.timezone_offset])).toEqual([
      [4_294_967_295, -32_768],
      [4_294_967_295, -32_768],
    ]);
  });

  it('when lr.identify got the user id with spaces around it, then it is stored trimmed, as the app SDKs read theirs', async () => {
    const { deps } = h();
    const p = await newProject(deps);

    const res = await postWeb(h(), sdkPageView(p.token, { event_type: 'identify', user_id: '  customer-42 \t' }));

    expect(res.json()).toEqual(stored);
    await flushFacts(h());
    expect((await webRows(deps, p)).map((r) => r.user_id)).toEqual(['customer-42']);
  });

  it('when the project enforces SDK request signing for its apps, then unsigned web events are still stored', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    await setSigningEnforcement(deps, p.project.id, { enforce: 'true' });

    const res = await postWeb(h(), sdkPageView(p.token));

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(stored);
  });

  it('when no event_id is sent, then each event is stored under an id of ours', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const body = sdkPageView(p.token, { event_id: undefined });

    expect((await postWeb(h(), body)).json()).toEqual(stored);
    expect((await postWeb(h(), body)).json()).toEqual(stored);

    await flushFacts(h());
    const ids = (await webRows(deps, p)).map((r) => String(r.event_id));
    expect(ids).toHaveLength(2);
    expect(ids.every((id) => id.startsWith('we_'))).toBe(true);
    expect(new Set(ids).size).toBe(2);
  });
});
