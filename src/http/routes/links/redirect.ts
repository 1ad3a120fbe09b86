// Campaign links: `/?c=<display_id>` and `/<display_id>` (or `/<display_id>/`), on a link domain or
// the service's own host, and `?c=<display_id>` on a deeper path (an app's universal link, below).
// The answer is a 302 to a stored target, the in-app intermediary page, the iPad-or-desktop page, or
// a 404 page; never JSON, and no /api rate limits. A prefetch gets 503 (refused, never counted).
// Static routes (/healthz, /docs, /openapi.json) win over the parametric one by Fastify's routing rules.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { isPrefetch } from '../../../domain/links/is-prefetch.ts';
import { type LinkOutcome, openLink } from '../../../domain/links/open-link.ts';
import { inAppPageCsp, renderInAppPage } from '../../present/in-app-page.ts';
import { renderIpadOrDesktopPage } from '../../present/ipad-or-desktop-page.ts';
import { LINK_NOT_FOUND_PAGE } from '../../present/link-not-found-page.ts';

function firstString(value: unknown): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return typeof v === 'string' ? v : undefined;
}

/** A self-contained page (200, HTML) under a nonce-based CSP: its inline style and script only. */
function sendPage(reply: FastifyReply, render: (nonce: string) => string): FastifyReply {
  const nonce = randomBytes(16).toString('base64');
  return reply
    .code(200)
    .type('text/html; charset=utf-8')
    .header('content-security-policy', inAppPageCsp(nonce))
    .header('x-content-type-options', 'nosniff')
    .send(render(nonce));
}

function send(reply: FastifyReply, outcome: LinkOutcome): FastifyReply {
  reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
  switch (outcome.kind) {
    case 'redirect':
      return reply.code(302).header('location', outcome.location).send();
    // Chrome keeps a prefetch only when it answers 2xx (after redirects), and an error is never
    // stored: the tap then asks again, reaches us, and is counted once. no-store for the others.
    case 'prefetch_refused':
      return reply.code(503).send();
    case 'in_app_page':
      return sendPage(reply, (nonce) => renderInAppPage({ ...outcome, nonce }));
    // A Mac Safari agent, maybe an iPad in desktop mode: the page picks the target on the device.
    case 'ipad_or_desktop_page':
      return sendPage(reply, (nonce) => renderIpadOrDesktopPage({ ...outcome, nonce }));
    default:
      return sendLinkNotFound(reply);
  }
}

/** The HTML 404 page of a link that names nothing. */
export function sendLinkNotFound(reply: FastifyReply): FastifyReply {
  return reply
    .code(404)
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .type('text/html; charset=utf-8')
    .header('x-content-type-options', 'nosniff')
    .send(LINK_NOT_FOUND_PAGE);
}

/**
 * Whether a request the router could not read (bad %-encoding) has a campaign link's shape: a GET
 * or HEAD of one path segment. It names no link, and gets the link's 404 page, not JSON.
 */
export function isLinkShaped(method: string, rawUrl: string | undefined): boolean {
  return (method === 'GET' || method === 'HEAD') && /^\/[^/?#]+\/?(?:[?#]|$)/.test(rawUrl ?? '');
}

/** The query string as the link carries it (after `?`): read in link order, as an init link is. */
function searchOf(req: FastifyRequest): string {
  const url = req.raw.url ?? '';
  const at = url.indexOf('?');
  return at < 0 ? '' : url.slice(at + 1);
}

/** `?c=` of the request, its first value ('' when absent). */
const cOf = (req: FastifyRequest): string => new URLSearchParams(searchOf(req)).get('c') ?? '';

async function answer(deps: Deps, req: FastifyRequest, reply: FastifyReply, displayId: string | undefined) {
  const outcome = await openLink(deps, {
    // hostname: the Host header without its port (X-Forwarded-Host only from a TRUST_PROXY proxy).
    host: req.hostname,
    displayId,
    userAgent: req.headers['user-agent'] ?? '',
    referrer: firstString(req.headers.referer) ?? '',
    ip: req.ip,
    search: searchOf(req),
    countable: req.method === 'GET',
    prefetch: isPrefetch(req.headers),
  });
  return send(reply, outcome);
}

// First path segments of the service's own routes (any case): a request under them that no route
// matched keeps its JSON 404, whatever its query (custom_display_id refuses these names too).
const SERVICE_PREFIXES = new Set(['api', 'docs', 'openapi.json', '.well-known', 'mcp', 'webhook', 'healthz', 'readyz']);

/**
 * `?c=<display_id>` on a path of more than one segment (`/promo/summer25?c=<id>`): an app's own
 * universal link (product notes "Deep linking"), which attribution reads as the campaign's link
 * (campaigns/parse-link.ts), opened in the browser by a visitor without the app. It is answered
 * as `/?c=<id>` is. It is served from the not-found handler, so that any route, now or added later,
 * wins over it: undefined when the request is not such a link (the caller answers its JSON 404).
 */
export function answerDeepPathLink(
  deps: Deps,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> | undefined {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return undefined;
  }
  const path = (req.raw.url ?? '').split(/[?#]/, 1)[0] ?? '';
  const segments = path.split('/').filter(Boolean);
  const c = cOf(req);
  if (segments.length < 2 || c === '' || SERVICE_PREFIXES.has((segments[0] ?? '').toLowerCase())) {
    return undefined;
  }
  return answer(deps, req, reply, c);
}

export function registerRedirectRoutes(app: FastifyInstance, deps: Deps): void {
  // HEAD of a link is the same answer without a body, never counted (app.ts: routes opt in).
  const head = { exposeHeadRoute: true };
  // Whether `/<id>` is a fixed GET route (/docs, /openapi.json, …). hasRoute reads `:`, `*` and `(`
  // as route syntax; such an id names no fixed route anyway.
  const fixedRoute = (id: string) => /^[\w.~-]+$/.test(id) && app.hasRoute({ method: 'GET', url: `/${id}` });
  app.get('/', head, (req, reply) => answer(deps, req, reply, cOf(req)));
  app.get<{ Params: { display_id: string } }>('/:display_id', head, (req, reply) => {
    // A fixed route without HEAD of its own (/docs) answers HEAD as any other path does, not as a link.
    if (req.method === 'HEAD' && fixedRoute(req.params.display_id)) {
      return reply.callNotFound();
    }
    return answer(deps, req, reply, req.params.display_id);
  });
  // `/<display_id>/` is the same link (the list's link filter reads it so, and editors and
  // shorteners add the slash); it answered a JSON 404. Only for this route: `/healthz/` and the
  // other fixed routes keep their not-found answer rather than becoming a link lookup.
  app.get<{ Params: { display_id: string } }>('/:display_id/', head, (req, reply) => {
    const id = req.params.display_id;
    if (fixedRoute(id)) {
      return reply.callNotFound();
    }
    return answer(deps, req, reply, id);
  });
}
