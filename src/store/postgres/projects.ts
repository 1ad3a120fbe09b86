// Projects and server keys. Keys are looked up by their SHA-256 only.

import { lookupCache } from './lookup-cache.ts';
import type { Sql } from './pool.ts';

export type Project = {
  id: string;
  name: string;
  timezone: string;
  displayCurrency: string;
  token: string;
  website: string | null;
  billingSuspended: boolean;
  paymentLink: string | null;
  /** Unsigned SDK requests are refused while this is on (real-clients §2). */
  enforceSdkSigning: boolean;
  createdAt: Date;
};

type ProjectRow = {
  id: string;
  name: string;
  timezone: string;
  display_currency: string;
  token: string;
  website: string | null;
  billing_suspended: boolean;
  payment_link: string | null;
  enforce_sdk_signing: boolean;
  created_at: Date;
};

export const toProject = (r: ProjectRow): Project => ({
  id: r.id,
  name: r.name,
  timezone: r.timezone,
  displayCurrency: r.display_currency,
  token: r.token,
  website: r.website,
  billingSuspended: r.billing_suspended,
  paymentLink: r.payment_link,
  enforceSdkSigning: r.enforce_sdk_signing,
  createdAt: r.created_at,
});

export async function insertProject(
  sql: Sql,
  p: { name: string; timezone: string; displayCurrency: string; token: string; website: string | null },
): Promise<Project> {
  const [row] = await sql<ProjectRow[]>`
    INSERT INTO projects (name, timezone, display_currency, token, website)
    VALUES (${p.name}, ${p.timezone}, ${p.displayCurrency}, ${p.token}, ${p.website})
    RETURNING *`;
  if (!row) {
    throw new Error('insert into projects returned no row');
  }
  return toProject(row);
}

export async function listProjects(sql: Sql): Promise<Project[]> {
  const rows = await sql<ProjectRow[]>`SELECT * FROM projects ORDER BY created_at, id`;
  return rows.map(toProject);
}

export async function findProjectById(sql: Sql, id: string): Promise<Project | undefined> {
  // The uuid's own shape: 36 hex digits and dashes in any order reached the cast and threw.
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) {
    return undefined;
  }
  const [row] = await sql<ProjectRow[]>`SELECT * FROM projects WHERE id = ${id}`;
  return row ? toProject(row) : undefined;
}

export async function countProjects(sql: Sql): Promise<number> {
  const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM projects`;
  return row?.n ?? 0;
}

export async function insertServerKey(sql: Sql, projectId: string, keyHash: Buffer, keyPrefix: string): Promise<void> {
  await sql`INSERT INTO server_keys (project_id, key_hash, key_prefix) VALUES (${projectId}, ${keyHash}, ${keyPrefix})`;
}

/**
 * Holds the project's row until the transaction ends: two key rotations at once (two CLI
 * processes) each revoked only the keys committed before it, and both new keys stayed valid.
 */
export async function lockProjectRow(sql: Sql, projectId: string): Promise<void> {
  await sql`SELECT 1 FROM projects WHERE id = ${projectId} FOR UPDATE`;
}

export async function revokeServerKeys(sql: Sql, projectId: string): Promise<number> {
  const rows =
    await sql`UPDATE server_keys SET revoked_at = now() WHERE project_id = ${projectId} AND revoked_at IS NULL`;
  return rows.count;
}

export type AuthenticatedProject = { keyId: number; project: Project };

export async function findProjectByKeyHash(sql: Sql, keyHash: Buffer): Promise<AuthenticatedProject | undefined> {
  const [row] = await sql<(ProjectRow & { key_id: number })[]>`
    SELECT k.id AS key_id, p.* FROM server_keys k JOIN projects p ON p.id = k.project_id
    WHERE k.key_hash = ${keyHash} AND k.revoked_at IS NULL`;
  return row ? { keyId: row.key_id, project: toProject(row) } : undefined;
}

export async function findProjectByToken(sql: Sql, token: string): Promise<Project | undefined> {
  const [row] = await sql<ProjectRow[]>`SELECT * FROM projects WHERE token = ${token}`;
  return row ? toProject(row) : undefined;
}

// Every client request starts by finding its project by token (a tenth of the ingest's Postgres
// round trips). Unknown tokens are not kept, so junk tokens cannot fill the cache.
const byToken = lookupCache<Project | undefined>((p) => p !== undefined);
const byId = lookupCache<Project | undefined>((p) => p !== undefined);

export function findProjectByTokenCached(sql: Sql, token: string): Promise<Project | undefined> {
  return byToken.get(token, () => findProjectByToken(sql, token));
}

/** findProjectById through the lookup cache (the attribution job reads it for every install). */
export function findProjectByIdCached(sql: Sql, id: string): Promise<Project | undefined> {
  return byId.get(id, () => findProjectById(sql, id));
}

export function forgetCachedProject(projectId: string): void {
  byToken.forget((p) => p?.id === projectId);
  byId.forgetKey(projectId);
}

export async function updateProjectBilling(
  sql: Sql,
  projectId: string,
  suspended: boolean,
  paymentLink: string | null,
): Promise<void> {
  await sql`UPDATE projects SET billing_suspended = ${suspended}, payment_link = ${paymentLink} WHERE id = ${projectId}`;
  forgetCachedProject(projectId);
}
