// Helpers for the Web SDK tests (test/http/web): bodies shaped as @linkrunner/web's buildPayload
// puts them on the wire (src/core.js, SDK 0.1.14), the three ways it sends them (fetch with
// keepalive, a sendBeacon Blob, XHR), and a reader of the web_events rows of one project.
import { randomUUID } from 'node:crypto';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Deps } from '../../src/deps.ts';
import { chJson, type Harness, type TestProject } from './harness.ts';

export type Res = LightMyRequestResponse;

export const CHROME_MAC_UA =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
export const PAGE_ORIGIN = 'https://shop.example.com';

const UTMS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_id', 'utm_term', 'utm_content'];
const CLICK_IDS = [
  'gclid',
  'gbraid',
  'wbraid',
  'fbclid',
  'fbc',
  'fbp',
  'ttclid',
  'twclid',
  'msclkid',
  'li_fat_id',
  'dclid',
  'irclickid',
];

/** A page view as the SDK builds it on https://shop.example.com/pricing?utm_source=meta&… (Chrome on a Mac). */
export function sdkPageView(token: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {
    token,
    event_id: randomUUID(),
    event_type: 'page_view',
    event_name: '',
    event_data: '',
    visitor_id: 'b5a3f0f2-7d0e-4c4e-9a43-2f1d0c9b8e11',
    session_id: '0f3c1f7e-1a2b-4c5d-8e9f-0a1b2c3d4e5f',
    user_id: '',
    is_new_visitor: 1,
    page_url: `${PAGE_ORIGIN}/pricing?utm_source=meta&utm_campaign=launch&fbclid=IwAR0abc`,
    page_path: '/pricing',
    page_title: 'Pricing – Shop',
    page_hash: '',
    page_search: '?utm_source=meta&utm_campaign=launch&fbclid=IwAR0abc',
    document_referrer: 'https://www.facebook.com/',
    referring_domain: 'www.facebook.com',
    canonical_url: `${PAGE_ORIGIN}/pricing`,
    screen_width: 1512,
    screen_height: 982,
    screen_color_depth: 30,
    viewport_width: 1512,
    viewport_height: 857,
    device_pixel_ratio: 2,
    language: 'en-US',
    languages: '["en-US","en"]',
    platform: 'MacIntel',
    timezone: 'Asia/Kolkata',
    timezone_offset: -330,
    connection_type: '4g',
    cookies_enabled: 1,
    do_not_track: '',
    touch_support: 0,
    hardware_concurrency: 10,
    device_memory: 8,
    user_agent: CHROME_MAC_UA,
    session_page_count: 1,
    entry_page: `${PAGE_ORIGIN}/pricing?utm_source=meta&utm_campaign=launch&fbclid=IwAR0abc`,
    traffic_source_type: 'paid_social',
    traffic_source_name: 'meta',
    is_bot: 0,
    client_timestamp: '2026-11-28T10:15:30.123Z',
    page_load_time: 812.4000000059605,
    dom_content_loaded: 401.5,
    dns_lookup_time: 0,
    tcp_connection_time: 21.29999999701977,
    ttfb: 95.69999999925494,
    dom_interactive: 388.1,
    ft_traffic_source_type: 'paid_social',
    ft_traffic_source_name: 'meta',
  };
  for (const k of UTMS) {
    body[k] = '';
    body[`ft_${k}`] = '';
  }
  for (const k of CLICK_IDS) {
    body[k] = '';
    body[`ft_${k}`] = '';
  }
  Object.assign(body, { utm_source: 'meta', utm_campaign: 'launch', ft_utm_source: 'meta', ft_utm_campaign: 'launch' });
  Object.assign(body, { fbclid: 'IwAR0abc', ft_fbclid: 'IwAR0abc', fbc: 'fb.1.1764324930123.IwAR0abc' });
  return { ...body, ...extra };
}

/** lr.track(name, data): a custom event, event_data a JSON string. */
export function sdkCustomEvent(token: string, name: string, data: unknown, extra: Record<string, unknown> = {}) {
  return sdkPageView(token, { event_type: 'custom', event_name: name, event_data: JSON.stringify(data), ...extra });
}

/** How the SDK sends: fetch (keepalive), a sendBeacon Blob typed application/json, XHR, or a beacon of a plain string. */
export const TRANSPORT_HEADERS = {
  fetch: { 'content-type': 'application/json', origin: PAGE_ORIGIN, 'sec-fetch-mode': 'cors' },
  beacon: { 'content-type': 'application/json', origin: PAGE_ORIGIN, 'sec-fetch-mode': 'cors' },
  xhr: { 'content-type': 'application/json', origin: PAGE_ORIGIN, 'x-requested-with': 'XMLHttpRequest' },
  beaconText: { 'content-type': 'text/plain;charset=UTF-8', origin: PAGE_ORIGIN, 'sec-fetch-mode': 'no-cors' },
} as const;

export function postWeb(
  h: Harness,
  body: unknown,
  opts: { path?: string; headers?: Record<string, string>; remoteAddress?: string } = {},
): Promise<Res> {
  return h.app.inject({
    method: 'POST',
    url: opts.path ?? '/web/ingest',
    headers: opts.headers ?? TRANSPORT_HEADERS.fetch,
    remoteAddress: opts.remoteAddress ?? '203.0.113.7',
    payload: (typeof body === 'string' ? body : JSON.stringify(body)) as InjectOptions['payload'],
  }) as Promise<Res>;
}

/** The project's web_events rows, oldest event id first, with numbers as JSON numbers. */
export function webRows(deps: Deps, p: TestProject): Promise<Record<string, unknown>[]> {
  return chJson(
    deps.ch,
    `SELECT * EXCEPT (ts, day), toString(day) AS day FROM web_events WHERE project_id = {p:String}
     ORDER BY client_ts, event_id SETTINGS output_format_json_quote_64bit_integers = 0`,
    { p: p.project.id },
  );
}

export const stored = {
  msg: 'Web event captured successfully',
  status: 200,
  data: { message: 'Web event captured successfully' },
};
export const duplicate = {
  msg: 'Web event already captured: duplicate event_id ignored.',
  status: 200,
  data: { message: 'Web event already captured: duplicate event_id ignored.' },
};
