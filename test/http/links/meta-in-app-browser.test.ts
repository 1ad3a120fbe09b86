// Meta's in-app browsers since late 2025 (README "In-app browsers"): the agent ends in
// "MetaIAB Facebook" (inapp-spy#57 on iOS, uap-core#665 on Android) without the FBAN/FBAV tokens,
// and such a phone visit still gets the in-app page that tries the app first.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { clickRowsOf, newLink, visitLink } from '../../support/links.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

const FACEBOOK_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_6_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/22G100 Safari/604.1 MetaIAB Facebook';
const FACEBOOK_ANDROID =
  'Mozilla/5.0 (Linux; Android 16; SM-G990U2 Build/BP2A.250605.031.A3; ) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/144.0.7559.117 Mobile Safari/537.36 MetaIAB Facebook';

describe('Meta’s in-app browser with a MetaIAB agent', () => {
  it.each([
    ['an iPhone', FACEBOOK_IPHONE, 'IOS'],
    ['an Android phone', FACEBOOK_ANDROID, 'ANDROID'],
  ])(
    'when Facebook on %s opens the link, then the in-app page tries the app, and the click says FACEBOOK',
    async (_n, ua, platform) => {
      const l = await newLink(h(), { link_for_desktop_users: 'https://example.com/desktop', deeplink: 'myapp://home' });

      const res = await visitLink(h(), l.host, `/${l.displayId}`, ua);

      // Was: a 302 to the store (in_app_browser ''), the app never tried.
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain(`"platform":"${platform}"`);
      expect(res.body).toContain('"app":"myapp://home"');
      expect(await clickRowsOf(h(), l.p)).toEqual([expect.objectContaining({ platform, in_app_browser: 'FACEBOOK' })]);
    },
  );
});
