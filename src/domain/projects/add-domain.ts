// Adds a link domain to a project. The first domain, or one added with primary, becomes the
// project's only primary domain.
import { isIP } from 'node:net';
import type { PgDeps } from '../../deps.ts';
import { normalizeDomain } from '../../lib/validate.ts';
import { DOMAIN_NAME_CONSTRAINT, type Domain, insertDomain } from '../../store/postgres/domains.ts';
import { InputError } from './input-error.ts';
import { requireProject } from './require-project.ts';

/**
 * The host to store, normalised, or an InputError saying why it is none. No project may take the
 * service's own host (PUBLIC_URL): a link's Host header finds its project, so one project holding it
 * made every other project's service-host links answer 404. A loopback name or an IP address is no
 * public link domain either.
 */
function linkHost(input: string, publicUrl: string): string {
  const name = normalizeDomain(input);
  if (name === undefined) {
    throw new InputError(
      isIP(input.trim().replace(/^\[(.*)\]$/, '$1')) !== 0
        ? `--name '${input}' is an IP address, not a host name (e.g. links.example.com)`
        : `--name '${input}' is not a host name (e.g. links.example.com)`,
    );
  }
  if (name === 'localhost' || name.endsWith('.localhost')) {
    throw new InputError(`--name '${input}' is a loopback host, not a public link domain (e.g. links.example.com)`);
  }
  if (name === normalizeDomain(new URL(publicUrl).hostname)) {
    throw new InputError(
      `--name '${input}' is this service's own host (PUBLIC_URL), which serves every project's links`,
    );
  }
  return name;
}

export async function addDomain(
  deps: Pick<PgDeps, 'sql' | 'config'>,
  projectId: string,
  input: { name: string; primary: boolean },
): Promise<Domain> {
  await requireProject(deps, projectId);
  const name = linkHost(input.name, deps.config.publicUrl);
  try {
    return await insertDomain(deps.sql, projectId, name, input.primary);
  } catch (err) {
    // Only the name's own constraint means "taken"; any other 23505 is a bug to surface as is.
    const e = err as { code?: string; constraint_name?: string };
    if (e.code === '23505' && e.constraint_name === DOMAIN_NAME_CONSTRAINT) {
      throw new InputError(`domain '${name}' is already registered`);
    }
    throw err;
  }
}
