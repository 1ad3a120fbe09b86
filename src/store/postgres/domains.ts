// Link domains of a project. Names are globally unique: a link's Host header finds its project.
import { normalizeDomain } from '../../lib/validate.ts';
import type { Sql } from './pool.ts';

export type Domain = { id: number; projectId: string; name: string; isPrimary: boolean; createdAt: Date };
type DomainRow = { id: number; project_id: string; name: string; is_primary: boolean; created_at: Date };
const toDomain = (r: DomainRow): Domain => ({
  id: r.id,
  projectId: r.project_id,
  name: r.name,
  isPrimary: r.is_primary,
  createdAt: r.created_at,
});

/** The host's own uniqueness (0001_projects.sql): a 23505 on it means the name is taken. */
export const DOMAIN_NAME_CONSTRAINT = 'domains_name_key';

// Advisory lock class for a project's domain writes (two-int form: class, hashtext(project id));
// spend-rows.ts uses 7_301_010 and skan.ts 7_301_012.
const DOMAIN_LOCK_CLASS = 7_301_014;

/**
 * Inserts a domain; when primary (or the project's first), it becomes the only primary. A
 * project's domain writes are serialised: two concurrent adds both read "no primary" and the second
 * failed on domains_one_primary, reported as a taken name.
 */
export async function insertDomain(sql: Sql, projectId: string, name: string, primary: boolean): Promise<Domain> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${DOMAIN_LOCK_CLASS}::int, hashtext(${projectId}))`;
    const [{ n } = { n: 0 }] = await tx<{ n: number }[]>`
      SELECT count(*)::int AS n FROM domains WHERE project_id = ${projectId} AND is_primary`;
    const makePrimary = primary || n === 0;
    if (makePrimary) {
      await tx`UPDATE domains SET is_primary = false WHERE project_id = ${projectId} AND is_primary`;
    }
    const [row] = await tx<DomainRow[]>`
      INSERT INTO domains (project_id, name, is_primary) VALUES (${projectId}, ${name}, ${makePrimary}) RETURNING *`;
    if (!row) {
      throw new Error('insert into domains returned no row');
    }
    return toDomain(row);
  });
}

export async function listDomains(sql: Sql, projectId: string): Promise<Domain[]> {
  const rows = await sql<DomainRow[]>`SELECT * FROM domains WHERE project_id = ${projectId} ORDER BY id`;
  return rows.map(toDomain);
}

/**
 * The project's domain of this name as a user writes it: normalised as names are stored (punycode
 * for an IDN, lower case, no trailing dot). A name normalizeDomain refuses is no domain (that also
 * keeps NUL, which Postgres text cannot hold, from reaching the query).
 */
export async function findDomainByName(sql: Sql, projectId: string, name: string): Promise<Domain | undefined> {
  const normalized = normalizeDomain(name);
  if (normalized === undefined) {
    return undefined;
  }
  const [row] = await sql<DomainRow[]>`
    SELECT * FROM domains WHERE project_id = ${projectId} AND name = ${normalized}`;
  return row ? toDomain(row) : undefined;
}

export async function findPrimaryDomain(sql: Sql, projectId: string): Promise<Domain | undefined> {
  const [row] = await sql<DomainRow[]>`SELECT * FROM domains WHERE project_id = ${projectId} AND is_primary`;
  return row ? toDomain(row) : undefined;
}
