// The embedded engine's query threads run niced (store/clickhouse/client.ts ENGINE_THREAD_NICE), so
// reports and fact batches take the CPU the event loop leaves. Read from /proc while a query runs;
// the event loop's own thread keeps its priority. Linux only (/proc). The engine keeps a `SET` for
// the rest of its session, so report reads carry their settings in a SETTINGS clause, which must
// not change how later statements (the views' inserts) run.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type ClickHouseClient, ENGINE_THREAD_NICE } from '../../src/store/clickhouse/client.ts';
import { insertFactRows } from '../../src/store/clickhouse/facts.ts';
import { selectKnownEventNames } from '../../src/store/clickhouse/reporting.ts';
import { chJson, migratedTestClickHouse, testClickHouse } from '../support/harness.ts';

/** Nice value of each thread of this process, by thread id. */
function threadNices(): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(tid), Number(fields[16]));
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/**
 * The nice values seen on this process's threads while queries run: short queries, one after
 * another, until an engine thread's nice has been seen or 10 s have passed. One 400M-row query ran
 * 5-14 s on a busy machine (its threads niced below every other process), most of the test's 30 s.
 */
async function nicesWhileQuerying(ch: ClickHouseClient): Promise<Set<number>> {
  const seen = new Set<number>();
  const end = Date.now() + 10_000;
  while (!seen.has(ENGINE_THREAD_NICE) && Date.now() < end) {
    let running = true;
    const query = ch
      .query({
        query: 'SELECT count() FROM numbers(20000000) WHERE cityHash64(number) % 7 = 1',
        format: 'JSONEachRow',
      })
      .then((rs) => rs.json())
      .finally(() => {
        running = false;
      });
    while (running) {
      for (const nice of threadNices().values()) {
        seen.add(nice);
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await query;
  }
  return seen;
}

async function setting(ch: ClickHouseClient, name: string): Promise<unknown> {
  const [row] = await chJson<{ v: unknown }>(ch, 'SELECT getSetting({name:String}) AS v', { name });
  return row?.v;
}

describe.runIf(existsSync('/proc/self/task'))('embedded engine priority', () => {
  it('when a query runs, then its threads are niced and the event loop thread is not', async () => {
    const ch = await testClickHouse();
    const seen = await nicesWhileQuerying(ch);

    expect(seen).toContain(ENGINE_THREAD_NICE);
    expect(threadNices().get(process.pid)).toBe(0);
  });

  it('when fact inserts and report reads have run, then later statements still run niced and with the engine defaults', async () => {
    const ch = await migratedTestClickHouse();
    const defaults = await setting(ch, 'compile_aggregate_expressions');
    await ch.command({ query: 'CREATE TABLE IF NOT EXISTS priority_probe (x UInt8) ENGINE = Memory' });
    await insertFactRows(ch, 'priority_probe', [{ x: 1 }], 'engine-priority-probe');
    await selectKnownEventNames(ch, 'engine-priority-project', { events: null, payments: null });

    expect(defaults).toBe(true);
    expect(await setting(ch, 'compile_aggregate_expressions')).toBe(true);
    expect(await setting(ch, 'os_thread_priority')).toBe(ENGINE_THREAD_NICE);
    expect(await nicesWhileQuerying(ch)).toContain(ENGINE_THREAD_NICE);
  }, 60_000);
});
