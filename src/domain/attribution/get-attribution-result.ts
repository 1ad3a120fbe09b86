// get-attribution-result: the attribution of a user's (user_id wins) or a device's install, with
// the decision record as an additive `match` object. Undecided or unknown → nothing (204). The
// deeplink carries the winning link's own parameters, as attribution-data's does (referral codes).
import type { Deps } from '../../deps.ts';
import { findDecision } from '../../store/clickhouse/attributions.ts';
import { findCampaignById } from '../../store/postgres/campaigns.ts';
import { findOutboxRow } from '../../store/postgres/fact-outbox.ts';
import { findInstallForLookup, type InstallRecord } from '../../store/postgres/installs.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { campaignDeeplink } from '../links/deeplink-params.ts';

export type AttributionResult = {
  campaign_name: string | null;
  display_id: string | null;
  deeplink: string | null;
  domain_name: string | null;
  ad_set_id: string | null;
  ad_set_name: string | null;
  ad_creative_id: string | null;
  ad_creative_name: string | null;
  keyword_id: string | null;
  keyword_name: string | null;
  ad_network: string | null;
  attribution_type: 'ORGANIC' | 'INORGANIC';
  match: Record<string, unknown>;
};

const orNull = (s: string | null | undefined) => (s ? s : null);

async function matchRecord(deps: Pick<Deps, 'sql' | 'ch'>, install: InstallRecord): Promise<Record<string, unknown>> {
  const id = install.decisionId ?? '';
  const raw =
    (await findDecision(deps.ch, install.projectId, install.campaignId ?? 0, id)) ??
    ((await findOutboxRow(deps.sql, 'attributions', install.projectId, id)) as Record<string, unknown> | undefined);
  const parse = (s: unknown) => {
    try {
      return typeof s === 'string' ? JSON.parse(s) : s;
    } catch {
      return s;
    }
  };
  return {
    decision_id: id,
    method: install.attributionMethod,
    reinstall: install.isReinstall,
    suspicious: install.suspicious,
    click_id: orNull(install.clickId),
    ...(raw
      ? {
          touch_type: raw.touch_type,
          ctit_ms: Number(raw.ctit_ms),
          confidence: Number(raw.confidence),
          suspicious_reason: raw.suspicious_reason,
          candidates: parse(raw.candidates),
          windows: parse(raw.windows),
        }
      : {}),
  };
}

export async function getAttributionResult(
  deps: Pick<Deps, 'sql' | 'ch'>,
  project: Project,
  by: { userId?: string; deviceIdentifier?: string },
): Promise<AttributionResult | undefined> {
  let install = by.userId ? await findInstallForLookup(deps.sql, project.id, { userId: by.userId }) : undefined;
  if (!install && by.deviceIdentifier) {
    install = await findInstallForLookup(deps.sql, project.id, { adId: by.deviceIdentifier });
  }
  if (install?.attributionStatus !== 'decided') {
    return undefined;
  }
  const campaign = install.campaignId ? await findCampaignById(deps.sql, project.id, install.campaignId) : undefined;
  // A deleted campaign is gone from the API (README), so its install answers ORGANIC; its ad set,
  // creative, keyword and network go with it (INORGANIC alone means "attributed to a campaign").
  // The decision as it was made stays in `match`.
  const ad = campaign ? install : undefined;
  return {
    campaign_name: campaign?.name ?? null,
    display_id: campaign?.displayId ?? null,
    deeplink: campaignDeeplink(campaign, install.linkParams),
    domain_name: campaign?.domainName ?? null,
    ad_set_id: orNull(ad?.adSetId),
    ad_set_name: orNull(ad?.adSetName),
    ad_creative_id: orNull(ad?.creativeId),
    ad_creative_name: orNull(ad?.creativeName),
    keyword_id: orNull(ad?.keywordId),
    keyword_name: orNull(ad?.keywordName),
    ad_network: orNull(ad?.network),
    attribution_type: campaign ? 'INORGANIC' : 'ORGANIC',
    match: await matchRecord(deps, install),
  };
}
