// Test factories: a project's domains, store listings and network accounts are made through the
// domain functions (the CLI's paths); campaigns through the real create endpoint; installs rows are
// written directly, since attributed users only count them.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../src/deps.ts';
import { addDomain } from '../../src/domain/projects/add-domain.ts';
import { addNetworkAccount } from '../../src/domain/projects/add-network-account.ts';
import { addStoreListing } from '../../src/domain/projects/add-store-listing.ts';
import type { Domain } from '../../src/store/postgres/domains.ts';
import type { NetworkAccount } from '../../src/store/postgres/network-accounts.ts';
import type { StoreListing } from '../../src/store/postgres/store-listings.ts';
import type { TestProject } from './harness.ts';

/** A host name no other test (or parallel file) uses: domain names are globally unique. */
export function uniqueHost(prefix = 'links'): string {
  return `${prefix}-${randomUUID().slice(0, 12)}.example.com`;
}

export function domain(deps: Deps, p: TestProject, opts: { primary?: boolean; name?: string } = {}): Promise<Domain> {
  return addDomain(deps, p.project.id, { name: opts.name ?? uniqueHost(), primary: opts.primary ?? false });
}

export function storeListing(
  deps: Deps,
  p: TestProject,
  platform: 'IOS' | 'ANDROID',
  name = `${platform} listing`,
): Promise<StoreListing> {
  const url =
    platform === 'IOS' ? 'https://apps.apple.com/app/id123456789' : 'https://play.google.com/store/apps/details?id=x.y';
  return addStoreListing(deps, p.project.id, { name, platform, url });
}

export function networkAccount(deps: Deps, p: TestProject, network: string): Promise<NetworkAccount> {
  return addNetworkAccount(deps, p.project.id, { network, name: `${network} account` });
}

/** The create response's data; fails loudly when the endpoint does not answer 201. */
export type CreatedCampaign = { id: number; display_id: string; name: string; link: string; domain: string | null };

export async function campaign(
  app: FastifyInstance,
  p: TestProject,
  body: Record<string, unknown> = {},
): Promise<CreatedCampaign> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/create-campaign',
    headers: p.headers,
    payload: { name: 'Campaign', ...body },
  });
  if (res.statusCode !== 201) {
    throw new Error(`create-campaign answered ${res.statusCode}: ${res.body}`);
  }
  return res.json().data as CreatedCampaign;
}

/** One installs row per user id (null: an install not yet tied to a user). */
export async function installs(
  deps: Deps,
  p: TestProject,
  campaignId: number,
  userIds: (string | null)[],
): Promise<void> {
  const rows = userIds.map((userId) => ({
    project_id: p.project.id,
    install_instance_id: randomUUID(),
    campaign_id: campaignId,
    user_id: userId,
  }));
  await deps.sql`INSERT INTO installs ${deps.sql(rows, 'project_id', 'install_instance_id', 'campaign_id', 'user_id')}`;
  // Each user registers (as trigger would) through their first install.
  for (const r of rows) {
    if (r.user_id !== null) {
      await deps.sql`INSERT INTO app_users (project_id, user_id, install_instance_id)
        VALUES (${r.project_id}, ${r.user_id}, ${r.install_instance_id}) ON CONFLICT DO NOTHING`;
    }
  }
}

export type CampaignRow = {
  id: number;
  project_id: string;
  display_id: string;
  name: string;
  deeplink: string | null;
  link_for_desktop_users: string | null;
  android_web_redirect: string | null;
  ios_web_redirect: string | null;
  website: string | null;
  is_shortlink: boolean;
  domain_id: number | null;
  active: boolean;
  network: string | null;
  google: boolean;
  meta: boolean;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
};

/** The project's campaign rows (deleted ones included), oldest first. */
export async function campaignRows(deps: Deps, p: TestProject): Promise<CampaignRow[]> {
  return deps.sql<CampaignRow[]>`SELECT * FROM campaigns WHERE project_id = ${p.project.id} ORDER BY id`;
}

export async function campaignRow(deps: Deps, p: TestProject, displayId: string): Promise<CampaignRow | undefined> {
  const [row] = await deps.sql<CampaignRow[]>`
    SELECT * FROM campaigns WHERE project_id = ${p.project.id} AND display_id = ${displayId}`;
  return row;
}
