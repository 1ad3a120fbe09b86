// The deep-link verification files (AASA, Digital Asset Links) a project's domains serve.
import type { Sql } from './pool.ts';

export type WellKnownFiles = { appleAppSiteAssociation: unknown; assetlinks: unknown };
type Row = { apple_app_site_association: unknown; assetlinks: unknown };
const toFiles = (r: Row): WellKnownFiles => ({
  appleAppSiteAssociation: r.apple_app_site_association,
  assetlinks: r.assetlinks,
});

/** The files of the project owning a link domain; undefined when no project owns it. */
export async function findWellKnownByDomainName(sql: Sql, host: string): Promise<WellKnownFiles | undefined> {
  // Postgres text refuses NUL (a 500 for a Host with NUL): such a host owns nothing.
  if (host.includes('\0')) {
    return undefined;
  }
  const [row] = await sql<Row[]>`
    SELECT p.apple_app_site_association, p.assetlinks FROM domains d JOIN projects p ON p.id = d.project_id
    WHERE d.name = ${host}`;
  return row ? toFiles(row) : undefined;
}

/** Sets the given files (undefined leaves a file as it is); returns what is stored afterwards. */
export async function updateWellKnown(
  sql: Sql,
  projectId: string,
  files: { appleAppSiteAssociation?: unknown; assetlinks?: unknown },
): Promise<WellKnownFiles | undefined> {
  const aasa = files.appleAppSiteAssociation === undefined ? null : sql.json(files.appleAppSiteAssociation as never);
  const links = files.assetlinks === undefined ? null : sql.json(files.assetlinks as never);
  const [row] = await sql<Row[]>`
    UPDATE projects SET
      apple_app_site_association = COALESCE(${aasa}::jsonb, apple_app_site_association),
      assetlinks = COALESCE(${links}::jsonb, assetlinks)
    WHERE id = ${projectId}
    RETURNING apple_app_site_association, assetlinks`;
  return row ? toFiles(row) : undefined;
}
