// The intermediary page for social apps' in-app browsers: it tries the app by its own URL scheme,
// then continues to the store target (iOS after 300 ms; Android after a 5-second countdown, with a
// button to go at once). Self-contained: one inline style and script, allowed by a per-response
// nonce, and a CSP that allows nothing else. Every URL is escaped for its context.

export type InAppPage = { platform: 'IOS' | 'ANDROID'; storeUrl: string; appUrl: string | undefined; nonce: string };

const IOS_FALLBACK_MS = 300;
const ANDROID_COUNTDOWN_S = 5;

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

/** JSON that is safe inside an inline <script>: no `</script>`, `<!--`, or JS line terminators. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

export function inAppPageCsp(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const STYLE =
  'body{font-family:system-ui,-apple-system,sans-serif;text-align:center;padding:3em 1em;color:#222}' +
  'a{display:inline-block;margin-top:1em;padding:.8em 1.6em;border-radius:.5em;background:#222;color:#fff;text-decoration:none}';

// Navigating to the app scheme leaves the page in place when the app is missing; the timer then
// moves on. When the app opens, the page is hidden and iOS stops its timers.
const SCRIPT = `(function () {
  var d = __DATA__;
  var go = function () { window.location.replace(d.store); };
  if (d.app) { window.location.href = d.app; }
  if (d.platform === 'IOS') { setTimeout(go, d.delayMs); return; }
  var n = d.countdown;
  var el = document.getElementById('n');
  var t = setInterval(function () {
    n -= 1;
    if (el) { el.textContent = String(n); }
    if (n <= 0) { clearInterval(t); go(); }
  }, 1000);
})();`;

export function renderInAppPage(p: InAppPage): string {
  const data = scriptJson({
    app: p.appUrl ?? null,
    store: p.storeUrl,
    platform: p.platform,
    delayMs: IOS_FALLBACK_MS,
    countdown: ANDROID_COUNTDOWN_S,
  });
  const countdown =
    p.platform === 'ANDROID' ? `<p>Continuing in <span id="n">${ANDROID_COUNTDOWN_S}</span> seconds…</p>` : '';
  const nonce = escapeHtml(p.nonce);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>Opening…</title><style nonce="${nonce}">${STYLE}</style></head>
<body><p>Opening the app…</p>${countdown}<p><a href="${escapeHtml(p.storeUrl)}">Continue</a></p>
<script nonce="${nonce}">${SCRIPT.replace('__DATA__', () => data)}</script></body></html>`;
}
