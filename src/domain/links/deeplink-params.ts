// Referral codes (product notes "Referral codes"): the campaign link's own parameters, kept on its
// click (read-click-params.ts readLinkParams) and carried by the decision to the install, are
// returned inside the campaign's deeplink by attribution-data and get-attribution-result.
import { readLinkParams } from './read-click-params.ts';

const decoded = (s: string): string => {
  try {
    return decodeURIComponent(s.replaceAll('+', ' '));
  } catch {
    return s;
  }
};
const nameOf = (pair: string): string => decoded(pair.split('=', 1)[0] ?? '');

/**
 * `deeplink` with the encoded `params` appended to its query. The deeplink is kept byte for byte
 * (any scheme, its own query and fragment; the parameters go before the fragment). A name the
 * deeplink's query already has keeps the deeplink's value: the campaign set it, and a visitor
 * editing the link must not re-route the app. An empty deeplink stays empty (there is none to extend).
 */
export function withLinkParams(deeplink: string, params: string): string {
  if (params === '' || deeplink === '') {
    return deeplink;
  }
  const hashAt = deeplink.indexOf('#');
  const hash = hashAt >= 0 ? deeplink.slice(hashAt) : '';
  const noHash = hashAt >= 0 ? deeplink.slice(0, hashAt) : deeplink;
  const qAt = noHash.indexOf('?');
  const own = new Set(
    qAt >= 0
      ? noHash
          .slice(qAt + 1)
          .split('&')
          .map(nameOf)
      : [],
  );
  const extra = params.split('&').filter((p) => !own.has(nameOf(p)));
  if (extra.length === 0) {
    return deeplink;
  }
  const sep = qAt < 0 ? '?' : /[?&]$/.test(noHash) ? '' : '&';
  return `${noHash}${sep}${extra.join('&')}${hash}`;
}

/** A campaign's deeplink with the winning link's parameters; null when the campaign has none. */
export function campaignDeeplink(campaign: { deeplink: string | null } | undefined, params: string): string | null {
  const deeplink = campaign?.deeplink ?? null;
  return deeplink === null ? null : withLinkParams(deeplink, params);
}

/** The link parameters of a campaign link given as text (an init link: host with or without scheme); '' when unreadable. */
export function linkParamsOfUrl(link: string): string {
  const text = link.trim();
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
    return readLinkParams(url.searchParams.entries());
  } catch {
    return '';
  }
}
