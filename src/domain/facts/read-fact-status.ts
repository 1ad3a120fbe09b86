// `facts status`: how far the fact pipeline is behind. Rows waiting in the outbox per table (how
// many a writer holds, and their bytes), the oldest row's age, the backlog cap, and dead letters per
// table.
import type { PgDeps } from '../../deps.ts';
import { countDeadLetters, type DeadLetterCount } from '../../store/postgres/fact-dead-letters.ts';
import { outboxStatus } from '../../store/postgres/fact-outbox.ts';

export type FactStatus = {
  outbox: { table: string; rows: number; claimed: number; bytes: number; oldestAgeSeconds: number }[];
  totalRows: number;
  totalBytes: number;
  oldestAgeSeconds: number;
  backlogMaxRows: number;
  overCap: boolean;
  deadLetters: DeadLetterCount[];
};

export async function readFactStatus(deps: PgDeps, now = Date.now()): Promise<FactStatus> {
  const [tables, deadLetters] = await Promise.all([outboxStatus(deps.sql), countDeadLetters(deps.sql)]);
  const ageOf = (d: Date) => Math.max(0, Math.round((now - d.getTime()) / 1000));
  const outbox = tables.map((t) => ({
    table: t.table,
    rows: t.rows,
    claimed: t.claimed,
    bytes: t.bytes,
    oldestAgeSeconds: ageOf(t.oldestCreatedAt),
  }));
  const totalRows = outbox.reduce((n, t) => n + t.rows, 0);
  return {
    outbox,
    totalRows,
    totalBytes: outbox.reduce((n, t) => n + t.bytes, 0),
    oldestAgeSeconds: outbox.reduce((m, t) => Math.max(m, t.oldestAgeSeconds), 0),
    backlogMaxRows: deps.config.factBacklogMaxRows,
    overCap: totalRows > deps.config.factBacklogMaxRows,
    deadLetters,
  };
}
