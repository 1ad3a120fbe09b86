// A project's sealed push-service credentials (FCM, APNS). The plaintext never reaches this file.
import type { Sql } from './pool.ts';

export async function upsertPushCredentials(
  sql: Sql,
  projectId: string,
  provider: string,
  sealed: string,
): Promise<void> {
  await sql`INSERT INTO push_credentials (project_id, provider, credentials_enc) VALUES (${projectId}, ${provider}, ${sealed})
    ON CONFLICT (project_id, provider) DO UPDATE SET credentials_enc = EXCLUDED.credentials_enc, updated_at = now()`;
}

export async function findPushCredentials(
  sql: Sql,
  projectId: string,
): Promise<{ provider: string; sealed: string }[]> {
  const rows = await sql`SELECT provider, credentials_enc FROM push_credentials WHERE project_id = ${projectId}`;
  return rows.map((r) => ({ provider: r.provider as string, sealed: r.credentials_enc as string }));
}
