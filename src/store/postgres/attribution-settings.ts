// Per-project attribution settings (jsonb; defaults applied in domain/attribution/settings.ts).
import type { Sql } from './pool.ts';

export async function findAttributionSettings(sql: Sql, projectId: string): Promise<unknown> {
  const [row] = await sql<{ s: unknown }[]>`SELECT attribution_settings AS s FROM projects WHERE id = ${projectId}`;
  return row?.s ?? {};
}

export async function updateAttributionSettings(sql: Sql, projectId: string, settings: unknown): Promise<void> {
  await sql`UPDATE projects SET attribution_settings = ${sql.json(settings as never)} WHERE id = ${projectId}`;
}

/** Whether clicks of this project recorded up to `at` are still in the outbox (not yet in ClickHouse). */
export async function clicksPendingBefore(sql: Sql, projectId: string, at: Date): Promise<boolean> {
  const [row] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM (SELECT 1 FROM fact_outbox
      WHERE fact_table = 'clicks' AND project_id = ${projectId} AND created_at <= ${at} LIMIT 1) x`;
  return (row?.n ?? 0) > 0;
}
