// SQL of a project's RevenueCat connection (sql/migrations/0025_revenuecat.sql): the SHA-256 of its
// webhook authorization token. No cache: a rotated or removed token stops working at once.
import type { Sql } from './pool.ts';
import { type Project, toProject } from './projects.ts';

export type RevenueCatConnection = {
  tokenPrefix: string;
  createdAt: Date;
  rotatedAt: Date | null;
};

type ConnectionRow = { token_prefix: string; created_at: Date; rotated_at: Date | null };

const toConnection = (r: ConnectionRow): RevenueCatConnection => ({
  tokenPrefix: r.token_prefix,
  createdAt: r.created_at,
  rotatedAt: r.rotated_at,
});

/** Sets the project's token hash, replacing any earlier one (rotated_at is then set). */
export async function upsertRevenueCatToken(
  sql: Sql,
  c: { projectId: string; tokenHash: Buffer; tokenPrefix: string },
  now: Date,
): Promise<RevenueCatConnection> {
  const [row] = await sql<ConnectionRow[]>`
    INSERT INTO revenuecat_connections (project_id, token_hash, token_prefix, created_at)
    VALUES (${c.projectId}, ${c.tokenHash}, ${c.tokenPrefix}, ${now})
    ON CONFLICT (project_id) DO UPDATE SET
      token_hash = EXCLUDED.token_hash, token_prefix = EXCLUDED.token_prefix, rotated_at = ${now}
    RETURNING token_prefix, created_at, rotated_at`;
  return toConnection(row as ConnectionRow);
}

export async function findRevenueCatConnection(sql: Sql, projectId: string): Promise<RevenueCatConnection | undefined> {
  const [row] = await sql<ConnectionRow[]>`
    SELECT token_prefix, created_at, rotated_at FROM revenuecat_connections WHERE project_id = ${projectId}`;
  return row ? toConnection(row) : undefined;
}

/** Whether the project had a token (now removed). */
export async function deleteRevenueCatConnection(sql: Sql, projectId: string): Promise<boolean> {
  const rows = await sql`DELETE FROM revenuecat_connections WHERE project_id = ${projectId}`;
  return rows.count > 0;
}

/** The project whose token hashes to `tokenHash`, if any. */
export async function findProjectByRevenueCatTokenHash(sql: Sql, tokenHash: Buffer): Promise<Project | undefined> {
  const [row] = await sql<Parameters<typeof toProject>[0][]>`
    SELECT p.* FROM revenuecat_connections c JOIN projects p ON p.id = c.project_id
    WHERE c.token_hash = ${tokenHash}`;
  return row ? toProject(row) : undefined;
}
