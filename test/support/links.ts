// Helpers for the link-handler tests: a project with a link domain and a campaign on both stores,
// a visit to one of its links with a given User-Agent, the clicks it recorded in ClickHouse (each
// test reads back only its own project's rows), and what the iPad-or-desktop page holds and does.
import { runInNewContext } from 'node:vm';
import { flushAllFacts } from '../../src/domain/facts/flush-facts.ts';
import { addDomain } from '../../src/domain/projects/add-domain.ts';
import * as f from './factories.ts';
import { type Harness, newProject, type TestProject } from './harness.ts';

export const LINK_UA = {
  chromeAndroid:
    'Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36',
  facebookAndroid:
    'Mozilla/5.0 (Linux; Android 12; SM-G991B Build/SP1A.210812.016; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/114.0.5735.196 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/421.0.0.33.47;]',
  instagramIos:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 307.0.0.34.111 (iPhone15,2; iOS 17_1; en_US; en; scale=3.00; 1179x2556; 532277029)',
  firefoxDesktop: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0',
};

/** Where an Android visit of a TestLink goes: the Play listing with our referrer. */
export const PLAY_WITH_REFERRER = /^https:\/\/play\.google\.com\/store\/apps\/details\?id=x\.y&referrer=lr_click_id%3D/;

export type TestLink = { p: TestProject; host: string; displayId: string };

/**
 * A project with a link domain (`domainName`, else a unique one; primary), one listing per store
 * (or those of `platforms`) and a campaign using them, created with `body` (deeplink,
 * link_for_desktop_users, …).
 */
export async function newLink(
  h: Harness,
  body: Record<string, unknown> = {},
  opts: { domainName?: string; platforms?: ('IOS' | 'ANDROID')[] } = {},
): Promise<TestLink> {
  const p = await newProject(h.deps);
  const d = opts.domainName
    ? await addDomain(h.deps, p.project.id, { name: opts.domainName, primary: true })
    : await f.domain(h.deps, p, { primary: true });
  const ids: string[] = [];
  for (const platform of opts.platforms ?? ['IOS', 'ANDROID']) {
    ids.push((await f.storeListing(h.deps, p, platform)).id);
  }
  const c = await f.campaign(h.app, p, { store_listing_ids: ids, ...body });
  return { p, host: d.name, displayId: c.display_id };
}

/** A GET of `url` on `host` with the given User-Agent and extra headers. */
export function visitLink(h: Harness, host: string, url: string, ua: string, headers: Record<string, string> = {}) {
  return h.app.inject({ method: 'GET', url, headers: { host, 'user-agent': ua, ...headers } });
}

/** The project's clicks in ClickHouse (the outbox flushed first), oldest first. */
export async function clicksOf(h: Harness, p: TestProject): Promise<{ click_id: string; link_params: string }[]> {
  await flushAllFacts(h.deps, ['clicks']);
  const rs = await h.deps.ch.query({
    query: 'SELECT click_id, link_params FROM clicks WHERE project_id = {p:String} ORDER BY ts, click_id',
    query_params: { p: p.project.id },
    format: 'JSONEachRow',
  });
  return rs.json<{ click_id: string; link_params: string }>();
}

/** The project's click rows in ClickHouse, every column (the outbox flushed first), oldest first. */
export async function clickRowsOf(h: Harness, p: TestProject): Promise<Record<string, string | number>[]> {
  await flushAllFacts(h.deps, ['clicks']);
  const rs = await h.deps.ch.query({
    query: 'SELECT * FROM clicks WHERE project_id = {p:String} ORDER BY ts, click_id',
    query_params: { p: p.project.id },
    format: 'JSONEachRow',
  });
  return rs.json<Record<string, string | number>>();
}

/** The iPad-or-desktop page's data: both targets, as the page's JSON holds them. */
export function ipadPageData(body: string): { ios: string; desktop: string } {
  return JSON.parse(/var d = (\{.*?\});/s.exec(body)?.[1] ?? '{}');
}

/** Where the page's script goes on a device with `touchPoints` (navigator.maxTouchPoints). */
export function pageScriptTargets(body: string, touchPoints: number): string[] {
  const script = /<script nonce="[^"]+">([\s\S]*?)<\/script>/.exec(body)?.[1] ?? '';
  const went: string[] = [];
  runInNewContext(script, {
    navigator: { maxTouchPoints: touchPoints },
    window: { location: { replace: (u: string) => went.push(u) } },
  });
  return went;
}
