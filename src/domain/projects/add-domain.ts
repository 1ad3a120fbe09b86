// Adds a link domain to a project. The first domain, or one added with primary, becomes the
// project's only primary domain.
import { isIP } from 'node:net';
import type { PgDeps } from '../../deps.ts';
import { normalizeDomain } from '../../lib/validate.ts';
import { DOMAIN_NAME_CONSTRAINT, type Domain, insertDomain } from '../../store/postgres/domains.ts';
import { InputError } from './input-error.ts';
import { requireProject } from './require-project.ts';

const normalizeHost = (host: string): string => host.trim().toLowerCase().replace(/\.$/, '');

/**
 * Hosts no project may take. A link's Host header finds its project, so the service's own host
 * (PUBLIC_URL) taken by one project made every other project's service-host links answer 404; a
 * loopback name or an IP address is no public link domain.
 */
function refusedHost(input: string, name: string, publicUrl: string): string | undefined {
  if (isIP(input.trim().replace(/^\[(.*)\]$/, '$1')) !== 0) {
    return `--name '${input}' is an IP address, not a host name (e.g. links.example.com)`;
  }
  if (name === 'localhost' || name.endsWith('.localhost')) {
    return `--name '${input}' is a loopback host, not a public link domain (e.g. links.example.com)`;
  }
  if (name === normalizeHost(new URL(publicUrl).hostname)) {
    return `--name '${input}' is this service's own host (PUBLIC_URL), which serves every project's links`;
  }
  return undefined;
}

export async function addDomain(
  deps: Pick<PgDeps, 'sql' | 'config'>,
  projectId: string,
  input: { name: string; primary: boolean },
): Promise<Domain> {
  await requireProject(deps, projectId);
  const refused = refusedHost(input.name, normalizeHost(input.name), deps.config.publicUrl);
  if (refused) {
    throw new InputError(refused);
  }
  const name = normalizeDomain(input.name);
  if (!name) {
    throw new InputError(`--name '${input.name}' is not a host name (e.g. links.example.com)`);
  }
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
