// The user properties an analytics vendor receives: the decided attribution of the install that
// registered the user. Names carry the `attribution_` prefix so they never collide with the app's
// own properties. A field the install does not have is left out (Braze deletes a custom attribute
// sent as null). Organic installs (no campaign, no network) get attribution_organic true and
// attribution_network "ORGANIC", so analysts can segment them; a link install without a network is
// "LINK" (as the webhooks' network_name).
import type { InstallAttribution } from '../../store/postgres/analytics-context.ts';

export function analyticsProperties(a: InstallAttribution): Record<string, string | boolean> {
  const organic = a.campaignDisplayId === null && a.network === null;
  const out: Record<string, string | boolean> = {
    attribution_organic: organic,
    attribution_network: a.network ?? (organic ? 'ORGANIC' : 'LINK'),
  };
  const put = (key: string, value: string | null | undefined) => {
    if (value !== null && value !== undefined && value !== '') {
      out[key] = value;
    }
  };
  put('attribution_campaign_name', a.campaignName);
  put('attribution_campaign_id', a.campaignDisplayId);
  put('attribution_ad_channel', a.network);
  put('attribution_ad_set', a.adSetName ?? a.adSetId);
  put('attribution_ad_set_id', a.adSetId);
  put('attribution_ad_creative', a.creativeName ?? a.creativeId);
  put('attribution_ad_creative_id', a.creativeId);
  put('attribution_keyword', a.keywordName ?? a.keywordId);
  put('attribution_keyword_id', a.keywordId);
  put('attribution_attributed_on', a.attributedAt?.toISOString());
  put('attribution_installed_at', a.installedAt?.toISOString());
  return out;
}
