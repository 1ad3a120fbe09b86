// Adds a store listing (Play custom listing or App Store custom product page) to a project.
import type { PgDeps } from '../../deps.ts';
import { hasControlChars } from '../../lib/control-chars.ts';
import { randomCode } from '../../lib/ids.ts';
import { charLength, isSafeWebUrl } from '../../lib/validate.ts';
import { insertStoreListing, type Platform, type StoreListing } from '../../store/postgres/store-listings.ts';
import { InputError } from './input-error.ts';
import { requireProject } from './require-project.ts';

export async function addStoreListing(
  deps: Pick<PgDeps, 'sql'>,
  projectId: string,
  input: { name: string; platform: string; url: string },
): Promise<StoreListing> {
  await requireProject(deps, projectId);
  const platform = input.platform.toUpperCase();
  if (platform !== 'IOS' && platform !== 'ANDROID') {
    throw new InputError(`--platform '${input.platform}' must be IOS or ANDROID`);
  }
  const name = input.name.trim();
  if (name === '' || charLength(name) > 200) {
    throw new InputError('--name must be 1 to 200 characters');
  }
  if (hasControlChars(name)) {
    throw new InputError('--name must not hold control characters (a newline, a tab, escape codes)');
  }
  if (!isSafeWebUrl(input.url)) {
    throw new InputError(`--url '${input.url}' is not an http(s) store URL`);
  }
  return insertStoreListing(deps.sql, {
    id: `sl_${randomCode(12)}`,
    projectId,
    name,
    platform: platform as Platform,
    storeUrl: input.url,
  });
}
