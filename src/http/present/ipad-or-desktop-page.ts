// The page for a Mac Safari agent, which an iPad in its default desktop mode sends too (README "Link
// handler"): the request cannot tell them apart, the device can. An iPad reports touch points
// (`navigator.maxTouchPoints` 5), a Mac none, so the script sends an iPad to the iOS target and
// anything else to the desktop target at once. Without script, a <noscript> refresh and the link
// go to the desktop target, as the 302 did. Self-contained under the in-app page's nonce CSP.
import { escapeHtml, scriptJson } from './in-app-page.ts';

export type IpadOrDesktopPage = { iosUrl: string; desktopUrl: string; nonce: string };

const STYLE =
  'body{font-family:system-ui,-apple-system,sans-serif;text-align:center;padding:3em 1em;color:#222}' +
  'a{display:inline-block;margin-top:1em;padding:.8em 1.6em;border-radius:.5em;background:#222;color:#fff;text-decoration:none}';

// replace(): the page stays out of the history, so Back returns to where the link was tapped.
const SCRIPT = `(function () {
  var d = __DATA__;
  var ipad = (navigator.maxTouchPoints || 0) > 1;
  window.location.replace(ipad ? d.ios : d.desktop);
})();`;

export function renderIpadOrDesktopPage(p: IpadOrDesktopPage): string {
  const data = scriptJson({ ios: p.iosUrl, desktop: p.desktopUrl });
  const nonce = escapeHtml(p.nonce);
  const desktop = escapeHtml(p.desktopUrl);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>Opening…</title>
<noscript><meta http-equiv="refresh" content="0;url=${desktop}"></noscript><style nonce="${nonce}">${STYLE}</style></head>
<body><p>Opening…</p><p><a href="${desktop}">Continue</a></p>
<script nonce="${nonce}">${SCRIPT.replace('__DATA__', () => data)}</script></body></html>`;
}
