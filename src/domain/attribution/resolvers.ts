// Network resolvers turn a network's own signal on the install (Meta install referrer, Apple Search
// Ads token) into a claim on one of our campaigns. They run in the platform's order (Meta first on
// Android, ASA first on iOS) and the first claim wins.
//
// Attribution never fails because a network is down: a resolver error is logged and counts as "no
// claim". The one exception is a NetworkUnavailableError (5xx, 429, timeout, connection refused,
// Apple's 404 for a token it does not know yet):
// it is passed up, and the attribution job retries (RetryLaterError), at most
// NETWORK_RETRY_LIMIT times per install and network. The next failure decides without the claim.
// The count lives in the cache (Redis in service mode), so it holds across workers and
// re-enqueues; if the cache itself fails, no retry is spent and the install is decided.
//
// A ConfigError (SECRETS_KEY missing in this process: the Meta referrer key cannot be opened) is
// passed up too, without limit: it is this process's fault, not the network's, and deciding
// without the claim recorded Meta's installs as organic for good. The install stays pending (the
// job fails; the reconciler enqueues it again) until a process with the key decides it.
import { ConfigError } from '../../config.ts';
import type { Deps } from '../../deps.ts';
import type { InstallRecord } from '../../store/postgres/installs.ts';
import type { Cache } from '../../store/redis/cache.ts';
import type { NetworkClaim } from './types.ts';

export interface NetworkResolver {
  method: 'meta_referrer' | 'apple_search_ads';
  resolve(input: { projectId: string; install: InstallRecord }): Promise<NetworkClaim | null>;
}

/** Retries per install and network; with the attribution queue's backoff they span ~8 s. */
export const NETWORK_RETRY_LIMIT = 4;

/** The network could not answer now; another attempt later may get the claim. */
export class NetworkUnavailableError extends Error {
  /** How many retries this failure may take per install and network (NETWORK_RETRY_LIMIT unless said). */
  readonly retryLimit: number;
  constructor(message: string, retryLimit = NETWORK_RETRY_LIMIT) {
    super(message);
    this.retryLimit = retryLimit;
  }
}
const RETRY_COUNT_TTL_SECONDS = 24 * 3600;

const FIRST_ON: Record<NetworkResolver['method'], string> = { meta_referrer: 'ANDROID', apple_search_ads: 'IOS' };

function inPlatformOrder(resolvers: NetworkResolver[], platform: string): NetworkResolver[] {
  const own = resolvers.filter((r) => FIRST_ON[r.method] === platform);
  return [...own, ...resolvers.filter((r) => !own.includes(r))];
}

/** Counts one more failed attempt; true while retries remain. */
async function spendRetry(cache: Cache, install: InstallRecord, method: string, limit: number): Promise<boolean> {
  const key = `network-retry:${install.projectId}:${install.installInstanceId}:${method}`;
  try {
    const used = Number((await cache.get(key)) ?? '0') + 1;
    await cache.set(key, String(used), RETRY_COUNT_TTL_SECONDS);
    return used <= limit;
  } catch {
    return false;
  }
}

export async function resolveNetworkClaim(
  deps: Pick<Deps, 'log' | 'cache'>,
  resolvers: NetworkResolver[],
  install: InstallRecord,
): Promise<NetworkClaim | null> {
  for (const resolver of inPlatformOrder(resolvers, install.platform)) {
    try {
      const claim = await resolver.resolve({ projectId: install.projectId, install });
      if (claim) {
        return claim;
      }
    } catch (err) {
      if (err instanceof ConfigError) {
        throw err;
      }
      if (
        err instanceof NetworkUnavailableError &&
        (await spendRetry(deps.cache, install, resolver.method, err.retryLimit))
      ) {
        throw err;
      }
      deps.log.warn(
        {
          method: resolver.method,
          projectId: install.projectId,
          installInstanceId: install.installInstanceId,
          err: String(err),
        },
        'network resolver failed; deciding without its claim',
      );
    }
  }
  return null;
}
