// Adds an ad-network account (network code, name, email, status) to a project.
import type { PgDeps } from '../../deps.ts';
import { hasControlChars } from '../../lib/control-chars.ts';
import { charLength } from '../../lib/validate.ts';
import { insertNetworkAccount, type NetworkAccount } from '../../store/postgres/network-accounts.ts';
import { normalizeNetworkCode } from '../campaigns/campaign.ts';
import { InputError } from './input-error.ts';
import { requireProject } from './require-project.ts';

const STATUSES = ['ACTIVE', 'INACTIVE', 'DISCONNECTED'];

export async function addNetworkAccount(
  deps: Pick<PgDeps, 'sql'>,
  projectId: string,
  input: { network: string; name: string; email?: string; status?: string },
): Promise<NetworkAccount> {
  await requireProject(deps, projectId);
  const network = normalizeNetworkCode(input.network);
  if (!/^[A-Z0-9_]{1,64}$/.test(network)) {
    throw new InputError(`--network '${input.network}' must be a network code such as META, GOOGLE or TIKTOK`);
  }
  const name = input.name.trim();
  if (name === '' || charLength(name) > 200) {
    throw new InputError('--name must be 1 to 200 characters');
  }
  if (hasControlChars(name)) {
    throw new InputError('--name must not hold control characters (a newline, a tab, escape codes)');
  }
  const status = (input.status ?? 'ACTIVE').toUpperCase();
  if (!STATUSES.includes(status)) {
    throw new InputError(`--status '${input.status}' must be one of ${STATUSES.join(', ')}`);
  }
  const email = (input.email ?? '').trim();
  if (email !== '' && !/^[^\s@]+@[^\s@]+$/.test(email)) {
    throw new InputError('--email is not an email address');
  }
  return insertNetworkAccount(deps.sql, { projectId, network, name, email, status });
}
