// The embedded engine's query threads run niced (store/clickhouse/client.ts ENGINE_THREAD_NICE), so
// reports and fact batches take the CPU the event loop leaves. Read from /proc while a query runs;
// the event loop's own thread keeps its priority. Linux only (/proc).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENGINE_THREAD_NICE } from '../../src/store/clickhouse/client.ts';
import { testClickHouse } from '../support/harness.ts';

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

describe.runIf(existsSync('/proc/self/task'))('embedded engine priority', () => {
  it('when a query runs, then its threads are niced and the event loop thread is not', async () => {
    const ch = await testClickHouse();
    const seen = new Set<number>();
    let running = true;
    const query = ch
      .query({
        query: 'SELECT count() FROM numbers(400000000) WHERE cityHash64(number) % 7 = 1',
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

    expect(seen).toContain(ENGINE_THREAD_NICE);
    expect(threadNices().get(process.pid)).toBe(0);
  });
});
