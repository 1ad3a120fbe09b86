// Creates a campaign: resolves the domain (default: the project's primary) and store listings
// (existence, ownership, one per platform), then inserts it. A display id is held by one project at
// most, deleted campaigns included: a project without a domain gets links on the service's own host,
// where the id alone names the campaign. The claim (claimDisplayId) locks the id until the insert
// commits, so concurrent creates of one id, in one project or several, yield exactly one campaign;
// a generated id that is taken is drawn again.
import type { Deps } from '../../deps.ts';
import { ApiError } from '../../http/errors.ts';
import { MSG } from '../../http/messages.ts';
import { randomCode } from '../../lib/ids.ts';
import { isSafeWebUrl } from '../../lib/validate.ts';
import {
  claimDisplayId,
  DISPLAY_ID_CONSTRAINT,
  findCampaignById,
  insertCampaign,
  type NewCampaign,
} from '../../store/postgres/campaigns.ts';
import { findDomainByName, findPrimaryDomain } from '../../store/postgres/domains.ts';
import { linkTargets } from '../../store/postgres/link-targets.ts';
import { asSql } from '../../store/postgres/pool.ts';
import type { Project } from '../../store/postgres/projects.ts';
import {
  findStoreListingsByIds,
  insertCampaignStoreListings,
  type StoreListing,
} from '../../store/postgres/store-listings.ts';
import { type Campaign, normalizeNetworkCode } from './campaign.ts';

export type CreateCampaignInput = {
  name: string;
  deeplink?: string;
  linkForDesktopUsers?: string;
  androidWebRedirect?: string;
  iosWebRedirect?: string;
  customDisplayId?: string;
  isShortlink?: boolean;
  domain?: string;
  storeListingIds?: string[];
  adNetwork?: string;
};

const RANDOM_ID_LENGTH = 8;

async function resolveListings(deps: Pick<Deps, 'sql'>, projectId: string, ids: string[]): Promise<StoreListing[]> {
  const unique = [...new Set(ids)];
  const found = await findStoreListingsByIds(deps.sql, projectId, unique);
  const missing = unique.filter((id) => !found.some((l) => l.id === id));
  if (missing.length > 0) {
    throw new ApiError(400, MSG.storeListingsNotFound(missing));
  }
  const platforms = new Set(found.map((l) => l.platform));
  if (platforms.size !== found.length) {
    throw new ApiError(400, MSG.storeListingSamePlatform);
  }
  return found;
}

/** Thrown inside the create transaction (rolling it back) when the display id is held already. */
class DisplayIdHeld extends Error {}

function isDisplayIdTaken(err: unknown): boolean {
  const e = err as { code?: string; constraint_name?: string };
  return err instanceof DisplayIdHeld || (e?.code === '23505' && e.constraint_name === DISPLAY_ID_CONSTRAINT);
}

export async function createCampaign(
  deps: Pick<Deps, 'sql'>,
  project: Project,
  input: CreateCampaignInput,
): Promise<Campaign> {
  const domain = input.domain
    ? await findDomainByName(deps.sql, project.id, input.domain)
    : await findPrimaryDomain(deps.sql, project.id);
  if (input.domain && !domain) {
    throw new ApiError(400, MSG.domainNotFound);
  }
  const listings = await resolveListings(deps, project.id, input.storeListingIds ?? []);
  const network = input.adNetwork ? normalizeNetworkCode(input.adNetwork) : null;
  const isShortlink = input.isShortlink === true;
  const deeplinkWebsite = input.deeplink && isSafeWebUrl(input.deeplink) ? input.deeplink : null;
  const base: Omit<NewCampaign, 'displayId'> = {
    projectId: project.id,
    name: input.name,
    deeplink: input.deeplink ?? null,
    linkForDesktopUsers: input.linkForDesktopUsers ?? null,
    androidWebRedirect: input.androidWebRedirect ?? null,
    iosWebRedirect: input.iosWebRedirect ?? null,
    website: isShortlink ? null : (input.linkForDesktopUsers ?? deeplinkWebsite),
    isShortlink,
    domainId: domain?.id ?? null,
    network,
    google: network === 'GOOGLE',
    meta: network === 'META',
  };
  const attempts = input.customDisplayId ? 1 : 5;
  for (let attempt = 1; ; attempt++) {
    const displayId = input.customDisplayId ?? randomCode(RANDOM_ID_LENGTH);
    try {
      const id = await deps.sql.begin(async (tx) => {
        if (!(await claimDisplayId(asSql(tx), displayId))) {
          throw new DisplayIdHeld();
        }
        const newId = await insertCampaign(asSql(tx), { ...base, displayId });
        await insertCampaignStoreListings(asSql(tx), newId, listings);
        return newId;
      });
      // After COMMIT, not inside the transaction: a click between a clear and the commit would
      // cache the old state for the TTL. A lookup that overlapped this clear is not kept
      // (lookup-cache.ts).
      linkTargets.clear();
      const created = await findCampaignById(deps.sql, project.id, id);
      if (!created) {
        throw new Error(`campaign ${id} vanished after insert`);
      }
      return { ...created, storeListings: listings, attributedUsers: 0 };
    } catch (err) {
      if (!isDisplayIdTaken(err)) {
        throw err;
      }
      if (attempt >= attempts) {
        if (input.customDisplayId) {
          throw new ApiError(400, MSG.displayIdTaken);
        }
        throw err;
      }
    }
  }
}
