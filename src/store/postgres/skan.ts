// SKAN schemas (versioned), per-install activity counters per window, and the install's current
// conversion values. Every query is scoped by project.
import type { Sql } from './pool.ts';

export type StoredSkanSchema = { version: number; schema: unknown; createdAt: Date };
export type SkanActivityRow = { windowIndex: number; kind: string; name: string; count: number; amount: string };
export type SkanInstallState = {
  platform: string;
  createdAt: Date;
  fine: number | null;
  coarse: string | null;
  locked: boolean;
  window: number | null;
};

// Advisory lock class of schema writers (two-int form: class, hashtext(project id)).
const SKAN_SCHEMA_LOCK_CLASS = 7_301_012;

/**
 * Adds the next version; the caller validated the schema. Writers of one project take turns: two
 * at once read the same max(version), and the second hit the primary key (a 500 to the API).
 */
export async function insertSkanSchema(sql: Sql, projectId: string, schema: unknown): Promise<StoredSkanSchema> {
  const [r] = await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${SKAN_SCHEMA_LOCK_CLASS}::int, hashtext(${projectId}))`;
    return tx`INSERT INTO skan_schemas (project_id, version, schema)
      SELECT ${projectId}, coalesce(max(version), 0) + 1, ${tx.json(schema as never)}
      FROM skan_schemas WHERE project_id = ${projectId}
      RETURNING version, schema, created_at`;
  });
  if (!r) {
    throw new Error('skan schema insert returned no row');
  }
  return { version: r.version as number, schema: r.schema, createdAt: r.created_at as Date };
}

export async function findCurrentSkanSchema(sql: Sql, projectId: string): Promise<StoredSkanSchema | undefined> {
  const [r] = await sql`SELECT version, schema, created_at FROM skan_schemas
    WHERE project_id = ${projectId} ORDER BY version DESC LIMIT 1`;
  return r ? { version: r.version as number, schema: r.schema, createdAt: r.created_at as Date } : undefined;
}

/**
 * Locks an iOS install's row for the rest of the transaction, so concurrent requests merge in turn;
 * other platforms are neither returned nor locked (their events take no extra lock).
 */
export async function lockSkanInstall(
  sql: Sql,
  projectId: string,
  installInstanceId: string,
): Promise<SkanInstallState | undefined> {
  const [r] = await sql`SELECT platform, created_at, skan_fine, skan_coarse, skan_locked, skan_window FROM installs
    WHERE project_id = ${projectId} AND install_instance_id = ${installInstanceId} AND platform = 'IOS' FOR UPDATE`;
  return r ? toState(r) : undefined;
}

export async function findSkanInstall(
  sql: Sql,
  projectId: string,
  installInstanceId: string,
): Promise<SkanInstallState | undefined> {
  const [r] = await sql`SELECT platform, created_at, skan_fine, skan_coarse, skan_locked, skan_window FROM installs
    WHERE project_id = ${projectId} AND install_instance_id = ${installInstanceId}`;
  return r ? toState(r) : undefined;
}

const toState = (r: Record<string, unknown>): SkanInstallState => ({
  platform: r.platform as string,
  createdAt: r.created_at as Date,
  fine: r.skan_fine as number | null,
  coarse: r.skan_coarse as string | null,
  locked: r.skan_locked as boolean,
  window: r.skan_window as number | null,
});

export async function addSkanActivity(
  sql: Sql,
  a: { projectId: string; installInstanceId: string; windowIndex: number; kind: string; name: string; amount: string },
): Promise<void> {
  await sql`INSERT INTO skan_activity (project_id, install_instance_id, window_index, kind, name, count, amount)
    VALUES (${a.projectId}, ${a.installInstanceId}, ${a.windowIndex}, ${a.kind}, ${a.name}, 1, ${a.amount})
    ON CONFLICT (project_id, install_instance_id, window_index, kind, name)
    DO UPDATE SET count = skan_activity.count + 1, amount = skan_activity.amount + EXCLUDED.amount`;
}

export async function readSkanActivity(
  sql: Sql,
  projectId: string,
  installInstanceId: string,
): Promise<SkanActivityRow[]> {
  const rows = await sql`SELECT window_index, kind, name, count, amount::text AS amount FROM skan_activity
    WHERE project_id = ${projectId} AND install_instance_id = ${installInstanceId}`;
  return rows.map((r) => ({
    windowIndex: r.window_index as number,
    kind: r.kind as string,
    name: r.name as string,
    count: Number(r.count),
    amount: r.amount as string,
  }));
}

export async function saveSkanValues(
  sql: Sql,
  projectId: string,
  installInstanceId: string,
  v: { fine: number; coarse: string; lock: boolean; window: number },
): Promise<void> {
  await sql`UPDATE installs SET skan_fine = ${v.fine}, skan_coarse = ${v.coarse}, skan_locked = ${v.lock},
      skan_window = ${v.window}, skan_updated_at = now()
    WHERE project_id = ${projectId} AND install_instance_id = ${installInstanceId}`;
}

export type SkanSampleInstall = SkanInstallState & { installInstanceId: string; valuesUpdatedAt: Date | null };

/** The most recent iOS installs that have recorded activity, with their values (dry-run sample). */
export async function listSkanSampleInstalls(sql: Sql, projectId: string, limit: number): Promise<SkanSampleInstall[]> {
  const rows = await sql`SELECT i.install_instance_id, i.platform, i.created_at, i.skan_fine, i.skan_coarse,
      i.skan_locked, i.skan_window, i.skan_updated_at FROM installs i
    WHERE i.project_id = ${projectId} AND i.platform = 'IOS'
      AND EXISTS (SELECT 1 FROM skan_activity a WHERE a.project_id = i.project_id
        AND a.install_instance_id = i.install_instance_id)
    ORDER BY i.created_at DESC LIMIT ${limit}`;
  return rows.map((r) => ({
    ...toState(r),
    installInstanceId: r.install_instance_id as string,
    valuesUpdatedAt: r.skan_updated_at as Date | null,
  }));
}
