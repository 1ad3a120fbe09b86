// chooseRedirect: every platform's fallback chain, the Play `referrer` parameter (click id + UTM
// values, URL-encoded so it survives Play's one decode and parses back with URLSearchParams), and
// that unsafe stored values and values on a host the link handler answers (a loop) are skipped
// rather than sent (catalog D7).
import { describe, expect, it } from 'vitest';
import { chooseRedirect, type RedirectInput } from '../../src/domain/links/choose-redirect.ts';

const PLAY = 'https://play.google.com/store/apps/details?id=com.example.app&listing=summer';
const APP_STORE = 'https://apps.apple.com/app/id123456789?ppid=abc';

const EMPTY: RedirectInput['campaign'] = {
  androidWebRedirect: null,
  iosWebRedirect: null,
  linkForDesktopUsers: null,
  website: null,
  deeplink: null,
};

function input(
  over: Partial<Omit<RedirectInput, 'campaign'>> & { campaign?: Partial<RedirectInput['campaign']> } = {},
): RedirectInput {
  return {
    platform: over.platform ?? 'ANDROID',
    campaign: { ...EMPTY, ...over.campaign },
    projectWebsite: over.projectWebsite ?? null,
    listings: over.listings ?? {},
    clickId: over.clickId ?? 'CLICKabc123',
    utm: over.utm ?? {},
    isLinkHost: over.isLinkHost ?? (() => false),
  };
}

/** The referrer Play hands the app: the `referrer` query value, decoded once. */
function playReferrer(location: string | undefined): URLSearchParams {
  const ref = new URL(location ?? '').searchParams.get('referrer');
  return new URLSearchParams(ref ?? '');
}

const ALL = {
  campaign: {
    androidWebRedirect: 'https://example.com/android',
    iosWebRedirect: 'https://example.com/ios',
    linkForDesktopUsers: 'https://example.com/desktop',
    website: 'https://example.com/campaign-site',
    deeplink: 'https://example.com/deep',
  },
  projectWebsite: 'https://example.com/project-site',
  listings: { ANDROID: { storeUrl: PLAY }, IOS: { storeUrl: APP_STORE } },
};

describe('chooseRedirect on Android', () => {
  it('when android_web_redirect is set, then it wins', () => {
    expect(chooseRedirect(input({ ...ALL, platform: 'ANDROID' }))).toBe('https://example.com/android');
  });

  it('when there is no android_web_redirect, then the Play listing with our referrer', () => {
    const loc = chooseRedirect(input({ ...ALL, campaign: { ...ALL.campaign, androidWebRedirect: null } }));
    expect(loc?.startsWith(`${PLAY}&referrer=`)).toBe(true);
    expect(playReferrer(loc).get('lr_click_id')).toBe('CLICKabc123');
  });

  it('when there is no Play listing, then campaign website, project website, web deeplink, then nothing', () => {
    const base = { ...ALL, listings: { IOS: { storeUrl: APP_STORE } } };
    const c = { ...ALL.campaign, androidWebRedirect: null };
    expect(chooseRedirect(input({ ...base, campaign: c }))).toBe('https://example.com/campaign-site');
    expect(chooseRedirect(input({ ...base, campaign: { ...c, website: null } }))).toBe(
      'https://example.com/project-site',
    );
    expect(chooseRedirect(input({ ...base, projectWebsite: null, campaign: { ...c, website: null } }))).toBe(
      'https://example.com/deep',
    );
    expect(
      chooseRedirect(
        input({ ...base, projectWebsite: null, campaign: { ...c, website: null, deeplink: 'myapp://x' } }),
      ),
    ).toBeUndefined();
  });
});

describe('chooseRedirect on iOS', () => {
  it('when ios_web_redirect is set, then it wins', () => {
    expect(chooseRedirect(input({ ...ALL, platform: 'IOS' }))).toBe('https://example.com/ios');
  });

  it('when there is no ios_web_redirect, then the App Store listing as stored (no referrer)', () => {
    const loc = chooseRedirect(input({ ...ALL, platform: 'IOS', campaign: { ...ALL.campaign, iosWebRedirect: null } }));
    expect(loc).toBe(APP_STORE);
  });

  it('when there is no App Store listing, then campaign website, project website, web deeplink, then nothing', () => {
    const base = { ...ALL, platform: 'IOS' as const, listings: { ANDROID: { storeUrl: PLAY } } };
    const c = { ...ALL.campaign, iosWebRedirect: null };
    expect(chooseRedirect(input({ ...base, campaign: c }))).toBe('https://example.com/campaign-site');
    expect(chooseRedirect(input({ ...base, campaign: { ...c, website: null } }))).toBe(
      'https://example.com/project-site',
    );
    expect(chooseRedirect(input({ ...base, projectWebsite: null, campaign: { ...c, website: null } }))).toBe(
      'https://example.com/deep',
    );
    expect(
      chooseRedirect(input({ ...base, projectWebsite: null, campaign: { ...c, website: null, deeplink: null } })),
    ).toBeUndefined();
  });
});

describe.each(['DESKTOP', 'OTHER'] as const)('chooseRedirect on %s', (platform) => {
  it('when link_for_desktop_users is set, then it wins', () => {
    expect(chooseRedirect(input({ ...ALL, platform }))).toBe('https://example.com/desktop');
  });

  it('when it is not, then campaign website, project website, web deeplink, Play, App Store, nothing', () => {
    const c = { ...ALL.campaign, linkForDesktopUsers: null };
    const bare = { ...c, website: null, deeplink: null };
    expect(chooseRedirect(input({ ...ALL, platform, campaign: c }))).toBe('https://example.com/campaign-site');
    expect(chooseRedirect(input({ ...ALL, platform, campaign: { ...c, website: null } }))).toBe(
      'https://example.com/project-site',
    );
    expect(chooseRedirect(input({ ...ALL, platform, projectWebsite: null, campaign: { ...c, website: null } }))).toBe(
      'https://example.com/deep',
    );
    const play = chooseRedirect(input({ ...ALL, platform, projectWebsite: null, campaign: bare }));
    expect(play?.startsWith(`${PLAY}&referrer=`)).toBe(true);
    expect(
      chooseRedirect(
        input({ ...ALL, platform, projectWebsite: null, campaign: bare, listings: { IOS: { storeUrl: APP_STORE } } }),
      ),
    ).toBe(APP_STORE);
    expect(chooseRedirect(input({ platform, campaign: bare }))).toBeUndefined();
  });
});

describe('the Play referrer parameter', () => {
  it('when UTM values are present, then they follow lr_click_id in a fixed order, absent ones left out', () => {
    const loc = chooseRedirect(
      input({ listings: { ANDROID: { storeUrl: PLAY } }, utm: { utm_campaign: 'summer', utm_source: 'meta' } }),
    );
    const ref = new URL(loc ?? '').searchParams.get('referrer');
    expect(ref).toBe('lr_click_id=CLICKabc123&utm_source=meta&utm_campaign=summer');
    expect(loc).toBe(`${PLAY}&referrer=lr_click_id%3DCLICKabc123%26utm_source%3Dmeta%26utm_campaign%3Dsummer`);
  });

  it('when UTM values hold &, =, +, spaces and non-ASCII, then they round-trip through URLSearchParams', () => {
    const utm = {
      utm_source: 'a&b=c',
      utm_medium: '1+1 = 2',
      utm_campaign: 'été 50%',
      utm_term: 'x?y#z',
      utm_content: '/path&lr_click_id=evil',
    };
    const params = playReferrer(chooseRedirect(input({ listings: { ANDROID: { storeUrl: PLAY } }, utm })));
    expect(Object.fromEntries(params)).toEqual({ lr_click_id: 'CLICKabc123', ...utm });
    expect(params.getAll('lr_click_id')).toEqual(['CLICKabc123']);
  });

  it('when the stored listing already has a referrer or a fragment, then ours replaces it and the rest is kept', () => {
    const stored = 'https://play.google.com/store/apps/details?referrer=old&id=com.x&hl=en#top';
    const loc = chooseRedirect(input({ listings: { ANDROID: { storeUrl: stored } } }));
    expect(loc).toBe(
      'https://play.google.com/store/apps/details?id=com.x&hl=en&referrer=lr_click_id%3DCLICKabc123#top',
    );
  });

  it('when the listing URL has no query, then the referrer starts one', () => {
    const loc = chooseRedirect(input({ listings: { ANDROID: { storeUrl: 'https://play.google.com/store/apps/x' } } }));
    expect(loc).toBe('https://play.google.com/store/apps/x?referrer=lr_click_id%3DCLICKabc123');
  });
});

describe('unsafe stored values', () => {
  it.each([
    'javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    '//evil.example',
    'https://good.example@evil.example/',
    'https://example.com/%0d%0aSet-Cookie:x=1',
    'https://example.com/\r\nSet-Cookie: x=1',
    'myapp://open',
  ])('when android_web_redirect is %j, then it is skipped for the next target', (bad) => {
    const loc = chooseRedirect(input({ campaign: { androidWebRedirect: bad, website: 'https://example.com/site' } }));
    expect(loc).toBe('https://example.com/site');
  });

  it('when a stored URL has non-ASCII characters, then Location carries them percent-encoded', () => {
    const loc = chooseRedirect(
      input({ platform: 'DESKTOP', campaign: { linkForDesktopUsers: 'https://example.com/été' } }),
    );
    expect(loc).toBe('https://example.com/%C3%A9t%C3%A9');
  });
});

// README "Where a click goes": a target on the project's link domains or the service's own host is
// the link handler again (an app's universal link stored as the deeplink): skipped in every chain.
describe('targets on a host the link handler answers', () => {
  const OURS = 'links.example.com';
  const ours = (path: string) => `https://${OURS}${path}`;
  const isLinkHost = (host: string) => host === OURS;

  it.each([
    ['ANDROID', { androidWebRedirect: ours('/a'), website: 'https://example.com/site' }, 'https://example.com/site'],
    ['IOS', { iosWebRedirect: ours('/i'), website: 'https://example.com/site' }, 'https://example.com/site'],
    ['DESKTOP', { linkForDesktopUsers: ours('/d'), website: 'https://example.com/site' }, 'https://example.com/site'],
    ['DESKTOP', { website: ours('/promo?c=x'), deeplink: 'https://example.com/deep' }, 'https://example.com/deep'],
  ] as const)('when a %s target is on a link host, then the chain moves on', (platform, campaign, expected) => {
    expect(chooseRedirect(input({ platform, campaign, isLinkHost }))).toBe(expected);
  });

  it('when the deeplink fallback is the campaign’s own universal link, then the desktop chain goes on to the store', () => {
    const loc = chooseRedirect(
      input({
        platform: 'DESKTOP',
        campaign: { deeplink: ours('/promo/summer25?c=x') },
        listings: { IOS: { storeUrl: APP_STORE } },
        isLinkHost,
      }),
    );

    expect(loc).toBe(APP_STORE);
  });

  it('when a store listing is on a link host, then it is skipped too', () => {
    const listings = { ANDROID: { storeUrl: ours('/play') }, IOS: { storeUrl: ours('/ios') } };

    expect(chooseRedirect(input({ platform: 'ANDROID', listings, isLinkHost }))).toBeUndefined();
    expect(chooseRedirect(input({ platform: 'IOS', listings, isLinkHost }))).toBeUndefined();
  });

  it('when the predicate is asked, then it gets the URL’s host name (no port, lower case)', () => {
    const asked: string[] = [];

    chooseRedirect(
      input({
        platform: 'DESKTOP',
        campaign: { linkForDesktopUsers: 'https://LINKS.Example.com:8443/x' },
        isLinkHost: (h) => {
          asked.push(h);
          return false;
        },
      }),
    );

    expect(asked).toEqual(['links.example.com']);
  });
});
