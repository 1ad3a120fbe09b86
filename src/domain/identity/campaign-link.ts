// The link a pending install is decided by. A link that names no campaign of the project (a product
// page, a link of another app) gives way to a later one that names a campaign, whether the later one
// comes in a repeated init or in handle-deeplink: kept first, it hid the campaign and the install
// was decided organic. A campaign link, once stored, is never replaced.
import type { Deps } from '../../deps.ts';
import { type InstallRecord, setInitLink } from '../../store/postgres/installs.ts';
import { retryConflicts } from '../../store/postgres/pool.ts';
import { campaignFromLink } from '../campaigns/parse-link.ts';

/** Stores `link` (known to name one of the project's campaigns) as the install's init link. */
export async function takeCampaignLink(
  deps: Pick<Deps, 'sql' | 'config'>,
  install: InstallRecord,
  link: string,
): Promise<void> {
  if (install.initLink === link) {
    return;
  }
  const replacing =
    install.initLink && !(await campaignFromLink(deps, install.projectId, install.initLink)) ? install.initLink : null;
  if (install.initLink && replacing === null) {
    return;
  }
  await retryConflicts(() => setInitLink(deps.sql, install.projectId, install.installInstanceId, link, replacing));
}
