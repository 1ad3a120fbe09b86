// A fact writer in a process of its own, for the crash test (test/facts/pipeline.test.ts): chdb
// opens one engine per process and the test process already has one, so the writer runs here
// against DATABASE_URL and its own embedded ClickHouse at CH_PATH, and can be SIGKILLed.
//   CHILD_MODE=flush  flushes every pending fact, then prints DONE. With FAULT=land-then-hang the
//                     first insert lands and never answers: it prints LANDED <table> <rows> and
//                     hangs between the ClickHouse insert and the outbox delete, for the kill.
//   CHILD_MODE=count  prints one JSON line of counts for PROJECT_ID (clicks and its view targets).
import { loadConfig } from '../../src/config.ts';
import { closeDeps, createDeps } from '../../src/deps.ts';
import { flushAllFacts } from '../../src/domain/facts/flush-facts.ts';
import { FACT_TABLES } from '../../src/domain/facts/tables.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createEmbeddedClickHouse } from '../../src/store/clickhouse/client.ts';
import { type ClickHouseFault, faultyClickHouse } from './faulty-clickhouse.ts';

const env = process.env;
const print = (s: string) => process.stdout.write(`${s}\n`);

async function count(ch: Awaited<ReturnType<typeof createEmbeddedClickHouse>>, query: string): Promise<number> {
  const rs = await ch.query({ query, format: 'JSONEachRow', query_params: { p: env.PROJECT_ID ?? '' } });
  const [row] = await rs.json<{ n: string }>();
  return Number(row?.n ?? 0);
}

async function main(): Promise<void> {
  const ch = await createEmbeddedClickHouse(env.CH_PATH ?? '');
  if (env.CHILD_MODE === 'count') {
    const counts = {
      clicks: await count(ch, 'SELECT toUInt64(count()) AS n FROM clicks WHERE project_id = {p:String}'),
      unique: await count(ch, 'SELECT toUInt64(uniqExact(click_id)) AS n FROM clicks WHERE project_id = {p:String}'),
      by_key: await count(ch, 'SELECT toUInt64(count()) AS n FROM clicks_by_key WHERE project_id = {p:String}'),
      by_ip: await count(ch, 'SELECT toUInt64(count()) AS n FROM clicks_by_ip WHERE project_id = {p:String}'),
    };
    print(JSON.stringify(counts));
    await ch.close();
    return;
  }
  const faulty = faultyClickHouse(ch, { onLanded: (table, rows) => print(`LANDED ${table} ${rows}`) });
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATA_DIR: env.DATA_DIR,
    DATABASE_URL: env.DATABASE_URL,
  });
  const deps = await createDeps(config, createLogger('silent'), { migrate: true, clickhouse: faulty.client });
  // Set after the migrations, whose bookkeeping is an insert too.
  faulty.set((env.FAULT ?? 'none') as ClickHouseFault, { times: 1 });
  print('READY');
  await flushAllFacts(deps, FACT_TABLES);
  print('DONE');
  await closeDeps(deps);
  await ch.close();
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
