// What the service stored, read by the test: Postgres while the service runs (is the backlog
// drained? which installs exist?) and the embedded ClickHouse after it stopped, through a child
// process (count-child.ts).
import type { Sql } from 'postgres';
import { cleanEnv, startNode } from '../../support/processes.ts';
import { waitUntil } from './wait.ts';

export type StoredTable = 'clicks' | 'installs' | 'attributions' | 'signups' | 'events' | 'payments';
export type Stored = Record<StoredTable, Map<string, number>>;

export async function readStored(chPath: string, projectId: string): Promise<Stored> {
  const child = startNode(
    ['--import', 'tsx', 'test/faults/support/count-child.ts'],
    cleanEnv({ CH_PATH: chPath, PROJECT_ID: projectId }),
  );
  const exit = await child.waitExit(120_000);
  if (exit.code !== 0) {
    throw new Error(`count child failed (${exit.code ?? exit.signal}): ${child.stderr().slice(-3000)}`);
  }
  const raw = JSON.parse(child.stdout().trim().split('\n').pop() ?? '{}') as Record<StoredTable, [string, number][]>;
  const out = {} as Stored;
  for (const t of ['clicks', 'installs', 'attributions', 'signups', 'events', 'payments'] as const) {
    out[t] = new Map(raw[t] ?? []);
  }
  return out;
}

/**
 * Waits until the acked installs are all decided and the outbox holds no row the writer could move
 * (rows of installs still being attributed wait for their decision; a ghost install, committed
 * while its request failed, is left to the reconciler and not waited for).
 */
export async function waitDrained(
  sql: Sql,
  projectId: string,
  ackedInstalls: string[],
  timeoutMs: number,
  /** Says why waiting is pointless (the service died), to fail at once. */
  abort: () => string | undefined = () => undefined,
) {
  const t0 = performance.now();
  await waitUntil(
    'the acked installs decided and the fact outbox drained',
    async () => {
      const reason = abort();
      if (reason) {
        throw new Error(reason);
      }
      try {
        const [r] = await sql<{ pending: number; outbox: number }[]>`
          SELECT
            (SELECT count(*)::int FROM installs WHERE project_id = ${projectId}
              AND attribution_status = 'pending' AND install_instance_id = ANY(${ackedInstalls})) AS pending,
            (SELECT count(*)::int FROM fact_outbox o
              LEFT JOIN installs i ON i.project_id = o.project_id AND i.install_instance_id = o.enrich_install
              WHERE o.project_id = ${projectId}
                AND (o.enrich_install IS NULL OR i.attribution_status IS DISTINCT FROM 'pending'
                  OR o.enrich_install = ANY(${ackedInstalls}))) AS outbox`;
        return r?.pending === 0 && r.outbox === 0;
      } catch {
        return false;
      }
    },
    timeoutMs,
    500,
  );
  return (performance.now() - t0) / 1000;
}

export async function deadLetters(sql: Sql, projectId: string): Promise<number> {
  const [r] = await sql<
    { n: number }[]
  >`SELECT count(*)::int AS n FROM fact_dead_letters WHERE project_id = ${projectId}`;
  return r?.n ?? 0;
}

/** Install ids (of those given) that Postgres holds: ghost inits are committed installs whose request failed. */
export async function installsInPostgres(sql: Sql, projectId: string, iids: string[]): Promise<Set<string>> {
  if (iids.length === 0) {
    return new Set();
  }
  const rows = await sql<{ id: string }[]>`
    SELECT install_instance_id AS id FROM installs WHERE project_id = ${projectId} AND install_instance_id = ANY(${iids})`;
  return new Set(rows.map((r) => r.id));
}
