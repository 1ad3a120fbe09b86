// The link's own parameters (referral codes) kept on the click are, per README "Link handler", "in
// link order, first value per name … at most 20 parameters". They are read from the raw query
// string: a parsed query object lists names that look like array indexes ("1", "2024") first,
// which reordered them and let the cap drop a referral code; the init-link path (linkParamsOfUrl)
// reads the same link in link order, and both must yield the same deeplink.
import { describe, expect, it } from 'vitest';
import { linkParamsOfUrl } from '../../../src/domain/links/deeplink-params.ts';
import { useHarness } from '../../support/harness.ts';
import { clicksOf, LINK_UA, newLink, visitLink } from '../../support/links.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

/** The link_params of one Android click on `/<id>?<query>`, with the link's host and id. */
async function linkParamsOfClick(query: string): Promise<{ kept: string; host: string; displayId: string }> {
  const l = await newLink(h(), { deeplink: 'myapp://promo' });
  const res = await visitLink(h(), l.host, `/${l.displayId}?${query}`, LINK_UA.chromeAndroid);
  expect(res.statusCode).toBe(302);
  const rows = await clicksOf(h(), l.p);
  expect(rows).toHaveLength(1);
  return { kept: rows[0]?.link_params ?? '', host: l.host, displayId: l.displayId };
}

describe('link parameters with numeric names', () => {
  it('when a numeric name follows the referral code, then link_params keeps link order, as the init link does', async () => {
    const query = 'ref=abc&2024=summer&x=1';

    const { kept, host, displayId } = await linkParamsOfClick(query);

    expect(linkParamsOfUrl(`https://${host}/${displayId}?${query}`)).toBe('ref=abc&2024=summer&x=1');
    expect(kept).toBe('ref=abc&2024=summer&x=1');
  });

  it('when the 20th parameter is the referral code and a 21st has a numeric name, then the referral code is kept and the 21st dropped', async () => {
    const fillers = Array.from({ length: 19 }, (_, i) => `a${i + 1}=v`);

    const { kept } = await linkParamsOfClick([...fillers, 'ref=CODE42', '1=late'].join('&'));

    expect(kept.split('&')).toHaveLength(20);
    expect(kept).toContain('ref=CODE42');
    expect(kept).not.toContain('1=late');
  });
});
