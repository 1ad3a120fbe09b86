// SDK request-signing keys (real-clients §2) and the project's enforcement flag. Every key query is
// scoped by project, so one project's key id never verifies another project's requests. Listings
// never select the secret.
import type { Sql } from './pool.ts';
import { forgetCachedProject } from './projects.ts';

export type SigningPlatform = 'IOS' | 'ANDROID';
export type SigningKeySummary = {
  keyId: string;
  projectId: string;
  platform: SigningPlatform;
  active: boolean;
  createdAt: Date;
};
export type SigningKey = SigningKeySummary & { secret: string };

type SummaryRow = { key_id: string; project_id: string; platform: SigningPlatform; active: boolean; created_at: Date };
type KeyRow = SummaryRow & { secret: string };

const toSummary = (r: SummaryRow): SigningKeySummary => ({
  keyId: r.key_id,
  projectId: r.project_id,
  platform: r.platform,
  active: r.active,
  createdAt: r.created_at,
});
const toKey = (r: KeyRow): SigningKey => ({ ...toSummary(r), secret: r.secret });

export async function insertSigningKey(
  sql: Sql,
  k: { keyId: string; projectId: string; platform: SigningPlatform; secret: string },
): Promise<SigningKey> {
  const [row] = await sql<KeyRow[]>`
    INSERT INTO sdk_signing_keys (key_id, project_id, platform, secret)
    VALUES (${k.keyId}, ${k.projectId}, ${k.platform}, ${k.secret})
    RETURNING key_id, project_id, platform, secret, active, created_at`;
  if (!row) {
    throw new Error('insert into sdk_signing_keys returned no row');
  }
  return toKey(row);
}

/** The key with this id owned by this project (active or not); undefined for any other project's key. */
export async function findSigningKey(sql: Sql, projectId: string, keyId: string): Promise<SigningKey | undefined> {
  const [row] = await sql<KeyRow[]>`
    SELECT key_id, project_id, platform, secret, active, created_at FROM sdk_signing_keys
    WHERE key_id = ${keyId} AND project_id = ${projectId}`;
  return row ? toKey(row) : undefined;
}

export async function listSigningKeys(sql: Sql, projectId: string): Promise<SigningKeySummary[]> {
  const rows = await sql<SummaryRow[]>`
    SELECT key_id, project_id, platform, active, created_at FROM sdk_signing_keys
    WHERE project_id = ${projectId} ORDER BY created_at, key_id`;
  return rows.map(toSummary);
}

/** Marks the key inactive; undefined when this project has no such key. */
export async function deactivateSigningKey(
  sql: Sql,
  projectId: string,
  keyId: string,
): Promise<SigningKeySummary | undefined> {
  const [row] = await sql<SummaryRow[]>`
    UPDATE sdk_signing_keys SET active = false WHERE key_id = ${keyId} AND project_id = ${projectId}
    RETURNING key_id, project_id, platform, active, created_at`;
  return row ? toSummary(row) : undefined;
}

export type SigningPolicy = { enforce: boolean };

export async function updateSigningPolicy(
  sql: Sql,
  projectId: string,
  policy: SigningPolicy,
): Promise<SigningPolicy | undefined> {
  const [row] = await sql<{ enforce_sdk_signing: boolean }[]>`
    UPDATE projects SET enforce_sdk_signing = ${policy.enforce} WHERE id = ${projectId}
    RETURNING enforce_sdk_signing`;
  forgetCachedProject(projectId);
  return row ? { enforce: row.enforce_sdk_signing } : undefined;
}

export async function countActiveSigningKeys(sql: Sql, projectId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM sdk_signing_keys WHERE project_id = ${projectId} AND active`;
  return row?.n ?? 0;
}
