// The attribution a captured payment was written with (the columns the fact writer added), so its
// removal can repeat it: enriched again at removal time, a refund whose install was decided after
// the capture went out organic landed on the campaign while the capture stayed organic.
import type { ClickHouseClient } from './client.ts';

/** The capture row's install columns, as ClickHouse holds them (JSONEachRow text and numbers). */
export type WrittenAttribution = Record<string, string | number>;

const COLUMNS = [
  'platform',
  'campaign_id',
  'display_id',
  'network',
  'ad_set_id',
  'ad_set_name',
  'creative_id',
  'creative_name',
  'keyword_id',
  'keyword_name',
  'reengagement_campaign_id',
  'install_ts',
  'install_day',
] as const;

/** By capture fact id: the captures of `factIds` that ClickHouse holds (not those still in the outbox). */
export async function findWrittenAttributions(
  ch: ClickHouseClient,
  projectId: string,
  factIds: string[],
): Promise<Map<string, WrittenAttribution>> {
  const found = new Map<string, WrittenAttribution>();
  const CHUNK = 1000;
  for (let i = 0; i < factIds.length; i += CHUNK) {
    const rs = await ch.query({
      query: `SELECT event_id, ${COLUMNS.join(', ')} FROM payments
        WHERE project_id = {p:String} AND event_id IN {ids:Array(String)} AND sign = 1
        LIMIT 1 BY event_id`,
      format: 'JSONEachRow',
      query_params: { p: projectId, ids: factIds.slice(i, i + CHUNK) },
    });
    for (const { event_id, ...cols } of await rs.json<WrittenAttribution & { event_id: string }>()) {
      found.set(event_id, cols);
    }
  }
  return found;
}
