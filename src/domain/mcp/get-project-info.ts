// get_project_info (MCP): what the project is, for an assistant to orient itself. Never a key, a
// token or a secret: the project row's public settings, its link domains and store listings.
import type { Deps } from '../../deps.ts';
import { type Domain, listDomains } from '../../store/postgres/domains.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { listStoreListings, type StoreListing } from '../../store/postgres/store-listings.ts';

export type ProjectInfo = { project: Project; domains: Domain[]; listings: StoreListing[] };

export async function getProjectInfo(deps: Pick<Deps, 'sql'>, project: Project): Promise<ProjectInfo> {
  const [domains, listings] = await Promise.all([
    listDomains(deps.sql, project.id),
    listStoreListings(deps.sql, project.id),
  ]);
  return { project, domains, listings };
}
