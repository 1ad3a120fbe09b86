// The configured network resolvers, built from the process's config and Postgres handle (the ASA
// URL is an operator setting; per-project keys and campaign mappings are read per install).
import type { Deps } from '../../deps.ts';
import { appleSearchAdsResolver } from './apple-search-ads.ts';
import { metaInstallReferrerResolver } from './meta-install-referrer.ts';
import type { NetworkResolver } from './resolvers.ts';

export function networkResolvers(deps: Pick<Deps, 'sql' | 'config'>): NetworkResolver[] {
  return [metaInstallReferrerResolver(deps), appleSearchAdsResolver(deps)];
}
