// Reads what a stopped service stored in its embedded ClickHouse (chdb opens a data directory in one
// process at a time, and one path per process, so every read runs in a child of its own). Prints
// one JSON line: per table, [key, rows] for every key of PROJECT_ID: clicks by click id, installs
// (kind 'install') and attributions by install id, sign-ups by user id, events by event id, payments
// by payment id. The fault suite and the embedded e2e tests (test/support/embedded-kit.ts) read it.
import { createEmbeddedClickHouse } from '../../../src/store/clickhouse/client.ts';

const QUERIES = {
  clicks: 'SELECT click_id AS k, toUInt32(count()) AS n FROM clicks WHERE project_id = {p:String} GROUP BY k',
  installs: `SELECT install_instance_id AS k, toUInt32(count()) AS n FROM install_events
    WHERE project_id = {p:String} AND kind = 'install' GROUP BY k`,
  attributions: `SELECT install_instance_id AS k, toUInt32(count()) AS n FROM attributions
    WHERE project_id = {p:String} GROUP BY k`,
  signups: 'SELECT user_id AS k, toUInt32(count()) AS n FROM signups WHERE project_id = {p:String} GROUP BY k',
  events: 'SELECT event_id AS k, toUInt32(count()) AS n FROM events WHERE project_id = {p:String} GROUP BY k',
  payments: `SELECT payment_id AS k, toUInt32(count()) AS n FROM payments
    WHERE project_id = {p:String} AND sign = 1 GROUP BY k`,
} as const;

async function main(): Promise<void> {
  const ch = await createEmbeddedClickHouse(process.env.CH_PATH ?? '');
  const out: Record<string, [string, number][]> = {};
  for (const [name, query] of Object.entries(QUERIES)) {
    const rs = await ch.query({ query, format: 'JSONEachRow', query_params: { p: process.env.PROJECT_ID ?? '' } });
    out[name] = (await rs.json<{ k: string; n: number }>()).map((r) => [r.k, Number(r.n)]);
  }
  await ch.close();
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
