// Per-project attribution settings (jsonb; defaults applied in domain/attribution/settings.ts).
import { lookupCache } from './lookup-cache.ts';
import type { Sql } from './pool.ts';

export async function findAttributionSettings(sql: Sql, projectId: string): Promise<unknown> {
  const [row] = await sql<{ s: unknown }[]>`SELECT attribution_settings AS s FROM projects WHERE id = ${projectId}`;
  return row?.s ?? {};
}

const cached = lookupCache<unknown>();

/** findAttributionSettings through the lookup cache (read once per install by the attribution job). */
export function findAttributionSettingsCached(sql: Sql, projectId: string): Promise<unknown> {
  return cached.get(projectId, () => findAttributionSettings(sql, projectId));
}

export async function updateAttributionSettings(sql: Sql, projectId: string, settings: unknown): Promise<void> {
  await sql`UPDATE projects SET attribution_settings = ${sql.json(settings as never)} WHERE id = ${projectId}`;
  cached.forgetKey(projectId);
}
