// Group commit for facts that need no transaction of their own (clicks): callers await append(),
// rows from concurrent callers go to the outbox in one multi-row INSERT, and each caller resumes
// once its rows are committed. While one INSERT runs, new rows gather for the next.
import { insertOutboxRows, type OutboxRow } from '../../store/postgres/fact-outbox.ts';
import type { Sql } from '../../store/postgres/pool.ts';

const MAX_ROWS_PER_INSERT = 2000;

type Waiter = { rows: OutboxRow[]; resolve: () => void; reject: (err: unknown) => void };

export type FactAppender = { append(rows: OutboxRow[]): Promise<void> };

export function createFactAppender(sql: Sql): FactAppender {
  const queue: Waiter[] = [];
  let running = false;

  const drain = async (): Promise<void> => {
    running = true;
    while (queue.length > 0) {
      const group: Waiter[] = [];
      let n = 0;
      while (queue.length > 0 && n < MAX_ROWS_PER_INSERT) {
        const w = queue.shift() as Waiter;
        group.push(w);
        n += w.rows.length;
      }
      try {
        await insertOutboxRows(
          sql,
          group.flatMap((w) => w.rows),
        );
        for (const w of group) {
          w.resolve();
        }
      } catch (err) {
        for (const w of group) {
          w.reject(err);
        }
      }
    }
    running = false;
  };

  return {
    append(rows) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ rows, resolve, reject });
        if (!running) {
          void drain();
        }
      });
    },
  };
}
