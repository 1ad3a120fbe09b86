// The `spend` fact row (clickhouse/migrations/0011_create_spend.sql). A change of a spend_rows row is
// two facts: its old values with sign -1 and its new values with sign 1, so sum(amount * sign)
// always equals the current value in Postgres.
import { formatChTime } from '../../lib/time.ts';

export type SpendValues = {
  day: string;
  campaignId: number;
  displayId: string;
  adSetId: string;
  adSetName: string;
  creativeId: string;
  creativeName: string;
  keywordId: string;
  keywordName: string;
  network: string;
  amount: string;
  impressions: number;
  clicks: number;
};

export function spendFactRow(
  projectId: string,
  factId: string,
  v: SpendValues,
  sign: 1 | -1,
  recordedAtMs: number,
): Record<string, unknown> {
  return {
    event_id: factId,
    project_id: projectId,
    day: v.day,
    campaign_id: v.campaignId,
    display_id: v.displayId,
    ad_set_id: v.adSetId,
    ad_set_name: v.adSetName,
    creative_id: v.creativeId,
    creative_name: v.creativeName,
    keyword_id: v.keywordId,
    keyword_name: v.keywordName,
    network: v.network,
    // Spend sources give no platform today; the column is there for pullers that do.
    platform: '',
    amount: v.amount,
    impressions: v.impressions,
    clicks: v.clicks,
    sign,
    recorded_at: formatChTime(recordedAtMs),
  };
}
