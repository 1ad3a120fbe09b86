// Referral codes: the in-app browser page must open the app with the link's own
// parameters. README "Referral codes": "`handle-deeplink` appends the parameters of the link it is
// given, and the in-app browser page opens the app with them." Product notes: "query params on the
// subdomain link are returned inside the `deeplink` URL". The commit (75f4816) also says "the
// redirect never fails for them" (at most 20 parameters and 1,000 characters).
import { describe, expect, it } from 'vitest';
import { campaignWithListings, useClientHarness } from '../../support/client.ts';
import { newProject } from '../../support/harness.ts';

const h = useClientHarness();

const INSTAGRAM =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 307.0.0.34.111 (iPhone15,2; iOS 17_1; en_US; en; scale=3.00; 1179x2556; 532277029)';

async function pageFor(deeplink: string, query: string) {
  const { deps } = h();
  const p = await newProject(deps);
  const c = await campaignWithListings(deps, p, { deeplink });
  const res = await h().app.inject({
    method: 'GET',
    url: `/${c.displayId}?${query}`,
    headers: { host: 'attr.test', 'user-agent': INSTAGRAM },
  });
  expect(res.statusCode).toBe(200);
  const m = /var d = (\{.*?\});/s.exec(res.body);
  return JSON.parse(m?.[1] ?? '{}') as { app: string | null; store: string };
}

describe('in-app browser page with referral parameters', () => {
  it('when a referral value holds a line break, then the page still opens the app (the parameter may be dropped, the app not)', async () => {
    const page = await pageFor('myapp://promo/spring', `referrer=user_1&note=${encodeURIComponent('hi\nthere')}`);

    // Observed: app is null — the app is never opened because a visitor's parameter was added.
    expect(page.app).not.toBeNull();
    expect(page.app).toMatch(/^myapp:\/\/promo\/spring\?referrer=user_1/);
  });

  it('when a long campaign deeplink gets referral parameters, then the page still opens the app', async () => {
    // A campaign deeplink of 1,500 characters is accepted at creation (URLs up to 2,048).
    const deeplink = `myapp://promo/spring?state=${'s'.repeat(1470)}`;
    expect(deeplink.length).toBeLessThan(2048);
    const page = await pageFor(deeplink, `referrer=${'u'.repeat(500)}&code=${'v'.repeat(400)}`);

    // Observed: app is null — deeplink + parameters pass 2,048 characters and isSafeDeeplink refuses it.
    expect(page.app).not.toBeNull();
    expect(page.app?.startsWith(deeplink)).toBe(true);
  });
});
