// Reads one attribution decision record (for the `match` object of get-attribution-result).
import type { ClickHouseClient } from './client.ts';

export type DecisionRecord = {
  decision_id: string;
  method: string;
  touch_type: string;
  click_id: string;
  ctit_ms: number;
  confidence: number;
  suspicious: number;
  suspicious_reason: string;
  candidates: string;
  windows: string;
};

export async function findDecision(
  ch: ClickHouseClient,
  projectId: string,
  campaignId: number,
  decisionId: string,
): Promise<DecisionRecord | undefined> {
  const rs = await ch.query({
    query: `SELECT decision_id, method, touch_type, click_id, ctit_ms, toFloat64(confidence) AS confidence,
        toUInt8(suspicious) AS suspicious, suspicious_reason, candidates, windows
      FROM attributions
      WHERE project_id = {p:String} AND campaign_id = {c:UInt32} AND decision_id = {d:String}
      LIMIT 1`,
    format: 'JSONEachRow',
    query_params: { p: projectId, c: campaignId, d: decisionId },
  });
  const [row] = await rs.json<DecisionRecord>();
  return row ? { ...row, ctit_ms: Number(row.ctit_ms), confidence: Number(row.confidence) } : undefined;
}
