// Adds a link domain to a project. The first domain, or one added with primary, becomes the
// project's only primary domain.
import type { PgDeps } from '../../deps.ts';
import { normalizeDomain } from '../../lib/validate.ts';
import { type Domain, insertDomain } from '../../store/postgres/domains.ts';
import { InputError } from './input-error.ts';
import { requireProject } from './require-project.ts';

export async function addDomain(
  deps: Pick<PgDeps, 'sql'>,
  projectId: string,
  input: { name: string; primary: boolean },
): Promise<Domain> {
  await requireProject(deps, projectId);
  const name = normalizeDomain(input.name);
  if (!name) {
    throw new InputError(`--name '${input.name}' is not a host name (e.g. links.example.com)`);
  }
  try {
    return await insertDomain(deps.sql, projectId, name, input.primary);
  } catch (err) {
    if ((err as { code?: string }).code === '23505') {
      throw new InputError(`domain '${name}' is already registered`);
    }
    throw err;
  }
}
