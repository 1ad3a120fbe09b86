// The deep-link verification file a link domain serves (AASA for iOS universal links, Digital
// Asset Links for Android app links), as pasted for the domain's project. Undefined when the host
// is no link domain or the project has not set that file.
import type { Deps } from '../../deps.ts';
import { findWellKnownByDomainName } from '../../store/postgres/well-known.ts';
import { normalizeHost } from './resolve-link.ts';

export type WellKnownKind = 'apple-app-site-association' | 'assetlinks';

export async function getWellKnownFile(
  deps: Pick<Deps, 'sql'>,
  host: string,
  kind: WellKnownKind,
): Promise<unknown | undefined> {
  const files = await findWellKnownByDomainName(deps.sql, normalizeHost(host));
  const value = kind === 'assetlinks' ? files?.assetlinks : files?.appleAppSiteAssociation;
  return value ?? undefined;
}
