// One user's rows in ClickHouse: finding, counting and deleting them (GDPR; the tables and how
// each is keyed are listed in domain/facts/tables.ts USER_DATA_TABLES). Deletes are mutations that
// the call waits for (mutations_sync = 2), so the rows are gone when it returns.
import type { ClickHouseClient } from './client.ts';

export type UserKeys = {
  projectId: string;
  userId: string;
  installIds: string[];
  clickIds: string[];
  /** The user's deliveries (Postgres deliveries.id), as delivery_attempts lists them (none if unset). */
  deliveryIds?: string[];
  /** Browsers (web_events.visitor_id) the user was identified on through the Web SDK. */
  visitorIds?: string[];
};
export type KeyedBy = 'user' | 'install' | 'click' | 'click key' | 'delivery' | 'web user';

const WHERE: Record<KeyedBy, string> = {
  user: `project_id = {p:String} AND (user_id = {u:String} OR (user_id = '' AND has({installs:Array(String)}, install_instance_id)))`,
  install: `project_id = {p:String} AND has({installs:Array(String)}, install_instance_id)`,
  click: `project_id = {p:String} AND has({clicks:Array(String)}, click_id)`,
  // clicks_by_key: a `c:` row names its click in match_key alone (ClickHouse migration 0022).
  'click key': `project_id = {p:String} AND (has({clicks:Array(String)}, click_id)
    OR has(arrayMap(c -> concat('c:', c), {clicks:Array(String)}), match_key))`,
  // An attempt sends a batch of deliveries, often of several users: the whole row goes (its
  // response may quote any of them).
  delivery: `project_id = {p:String} AND hasAny(delivery_ids, {deliveries:Array(String)})`,
  // Web SDK events: the user's own, and the anonymous ones (before lr.identify) of the browsers the
  // user was identified on; another user's events on a shared browser stay.
  'web user': `project_id = {p:String} AND (user_id = {u:String}
    OR (user_id = '' AND has({visitors:Array(String)}, visitor_id)))`,
};
const params = (k: UserKeys) => ({
  p: k.projectId,
  u: k.userId,
  installs: k.installIds,
  clicks: k.clickIds,
  deliveries: k.deliveryIds ?? [],
  visitors: k.visitorIds ?? [],
});

/** The browsers (Web SDK visitor ids) the user was identified on. */
export async function findUserVisitorIds(ch: ClickHouseClient, projectId: string, userId: string): Promise<string[]> {
  return selectIds(
    ch,
    `SELECT DISTINCT visitor_id AS id FROM web_events
      WHERE project_id = {p:String} AND user_id = {u:String} AND visitor_id != ''`,
    { p: projectId, u: userId },
  );
}

/** The installs the user's own facts name (finds them again after Postgres already forgot them). */
export async function findUserInstallIds(ch: ClickHouseClient, projectId: string, userId: string): Promise<string[]> {
  const rs = await ch.query({
    query: `SELECT DISTINCT install_instance_id AS id FROM (
        SELECT install_instance_id FROM signups WHERE project_id = {p:String} AND user_id = {u:String}
        UNION ALL SELECT install_instance_id FROM events WHERE project_id = {p:String} AND user_id = {u:String}
        UNION ALL SELECT install_instance_id FROM payments WHERE project_id = {p:String} AND user_id = {u:String})
      WHERE id != ''`,
    format: 'JSONEachRow',
    query_params: { p: projectId, u: userId },
  });
  return (await rs.json<{ id: string }>()).map((r) => r.id);
}

/** Winning clicks recorded in the installs' attribution decisions. */
export async function findDecisionClickIds(
  ch: ClickHouseClient,
  projectId: string,
  installIds: string[],
): Promise<string[]> {
  if (installIds.length === 0) {
    return [];
  }
  const rs = await ch.query({
    query: `SELECT DISTINCT click_id AS id FROM attributions
      WHERE project_id = {p:String} AND has({installs:Array(String)}, install_instance_id) AND click_id != ''`,
    format: 'JSONEachRow',
    query_params: { p: projectId, installs: installIds },
  });
  return (await rs.json<{ id: string }>()).map((r) => r.id);
}

/**
 * The other clicks of the user's device: those its installs' decisions found by the device itself
 * (a winner, its Play referrer's click, clicks matched by its ad id), and every click that carried
 * one of the device's advertising ids, decided on or not (it holds the ad id, IP and user agent).
 * A fingerprint candidate that lost is only a click from the same IP, often another person's (a
 * shared network: its device may differ), and stays. A click that an install which stays won is
 * that install's evidence and is left out too (a shared device). Both reads scan the project's rows
 * of a column or two (ad_id is not in the clicks' sort key); deletion is rare and this runs once.
 */
export async function findLinkedClickIds(
  ch: ClickHouseClient,
  projectId: string,
  installIds: string[],
  adIds: string[],
): Promise<string[]> {
  if (installIds.length === 0 && adIds.length === 0) {
    return [];
  }
  const p = { p: projectId, installs: installIds, ads: adIds };
  const found = await selectIds(
    ch,
    `SELECT DISTINCT id FROM (
        SELECT arrayJoin(arrayMap(c -> JSONExtractString(c, 'click_id'), arrayFilter(c ->
            JSONExtractString(c, 'outcome') = 'won' OR JSONExtractString(c, 'method') IN ('play_referrer', 'ad_id'),
            JSONExtractArrayRaw(candidates)))) AS id
        FROM attributions WHERE project_id = {p:String} AND has({installs:Array(String)}, install_instance_id)
        UNION ALL SELECT click_id AS id FROM clicks WHERE project_id = {p:String} AND has({ads:Array(String)}, ad_id))
      WHERE id != ''`,
    p,
  );
  if (found.length === 0) {
    return [];
  }
  const wonElsewhere = new Set(
    await selectIds(
      ch,
      `SELECT DISTINCT click_id AS id FROM attributions WHERE project_id = {p:String}
      AND has({found:Array(String)}, click_id) AND NOT has({installs:Array(String)}, install_instance_id)`,
      { ...p, found },
    ),
  );
  return found.filter((id) => !wonElsewhere.has(id));
}

async function selectIds(ch: ClickHouseClient, query: string, params: Record<string, unknown>): Promise<string[]> {
  const rs = await ch.query({ query, format: 'JSONEachRow', query_params: params });
  return (await rs.json<{ id: string }>()).map((r) => r.id);
}

// Table names come from USER_DATA_TABLES (constants); every value is a bound parameter.
export async function countUserRowsIn(ch: ClickHouseClient, table: string, by: KeyedBy, k: UserKeys): Promise<number> {
  const rs = await ch.query({
    query: `SELECT toUInt64(count()) AS n FROM ${table} WHERE ${WHERE[by]}`,
    format: 'JSONEachRow',
    query_params: params(k),
  });
  const [row] = await rs.json<{ n: string | number }>();
  return Number(row?.n ?? 0);
}

export async function deleteUserRowsIn(ch: ClickHouseClient, table: string, by: KeyedBy, k: UserKeys): Promise<void> {
  await ch.command({
    query: `ALTER TABLE ${table} DELETE WHERE ${WHERE[by]}`,
    query_params: params(k),
    clickhouse_settings: { mutations_sync: '2' },
  });
}
