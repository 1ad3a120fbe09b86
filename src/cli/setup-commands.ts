// Project setup commands: link domains, store listings, ad-network accounts and SDK signing keys.
// Listed in COMMANDS (commands.ts).
import { addDomain } from '../domain/projects/add-domain.ts';
import { addNetworkAccount } from '../domain/projects/add-network-account.ts';
import { addStoreListing } from '../domain/projects/add-store-listing.ts';
import { createSigningKey } from '../domain/projects/create-signing-key.ts';
import { revokeSigningKey } from '../domain/projects/revoke-signing-key.ts';
import { listDomains } from '../store/postgres/domains.ts';
import { listNetworkAccounts } from '../store/postgres/network-accounts.ts';
import { listSigningKeys, type SigningKeySummary } from '../store/postgres/signing-keys.ts';
import { listStoreListings } from '../store/postgres/store-listings.ts';
import { opt, PROJECT, projectList, str } from './command-kit.ts';
import type { CommandSpec } from './commands.ts';

// Never holds the secret: only `signing-keys create` prints it, once.
const signingKeyJson = (k: SigningKeySummary) => ({
  key_id: k.keyId,
  platform: k.platform,
  active: k.active,
  created_at: k.createdAt.toISOString(),
});

export const SETUP_COMMANDS: CommandSpec[] = [
  {
    path: ['domains', 'add'],
    summary: 'add a link domain (the first one, or --primary, becomes primary)',
    needs: 'postgres',
    flags: {
      ...PROJECT,
      name: { type: 'string', required: true, description: 'host name, e.g. links.example.com' },
      primary: { type: 'boolean', description: 'make it the primary domain' },
    },
    run: async (deps, f) => {
      const d = await addDomain(deps, str(f, 'project'), { name: str(f, 'name'), primary: f.primary === true });
      return {
        json: { id: d.id, name: d.name, is_primary: d.isPrimary },
        text: `domain ${d.name} added (id ${d.id}${d.isPrimary ? ', primary' : ''})`,
      };
    },
  },
  projectList(
    'domains',
    "list a project's domains",
    (deps, id) => listDomains(deps.sql, id),
    (d) => ({ id: d.id, name: d.name, is_primary: d.isPrimary }),
    ['id', 'name', 'primary'],
    (d) => [String(d.id), d.name, d.isPrimary ? 'yes' : ''],
  ),
  {
    path: ['store-listings', 'add'],
    summary: 'add a store listing (IOS or ANDROID) with its store URL',
    needs: 'postgres',
    flags: {
      ...PROJECT,
      platform: { type: 'string', required: true, description: 'IOS or ANDROID' },
      name: { type: 'string', required: true, description: 'display name' },
      url: { type: 'string', required: true, description: 'App Store or Play Store URL' },
    },
    run: async (deps, f) => {
      const l = await addStoreListing(deps, str(f, 'project'), {
        platform: str(f, 'platform'),
        name: str(f, 'name'),
        url: str(f, 'url'),
      });
      return {
        json: { store_listing_id: l.id, name: l.name, platform: l.platform, store_url: l.storeUrl },
        text: `store listing ${l.id} added (${l.platform}, ${l.name})`,
      };
    },
  },
  projectList(
    'store-listings',
    "list a project's store listings",
    (deps, id) => listStoreListings(deps.sql, id),
    (l) => ({ store_listing_id: l.id, name: l.name, platform: l.platform, store_url: l.storeUrl }),
    ['store_listing_id', 'platform', 'name', 'store_url'],
    (l) => [l.id, l.platform, l.name, l.storeUrl],
  ),
  {
    path: ['network-accounts', 'add'],
    summary: 'add an ad-network account',
    needs: 'postgres',
    flags: {
      ...PROJECT,
      network: { type: 'string', required: true, description: 'network code: META, GOOGLE, TIKTOK, ...' },
      name: { type: 'string', required: true, description: 'account name' },
      email: { type: 'string', description: 'account email' },
      status: { type: 'string', description: 'ACTIVE (default), INACTIVE or DISCONNECTED' },
    },
    run: async (deps, f) => {
      const a = await addNetworkAccount(deps, str(f, 'project'), {
        network: str(f, 'network'),
        name: str(f, 'name'),
        email: opt(f, 'email'),
        status: opt(f, 'status'),
      });
      return {
        json: { id: a.id, network: a.network, name: a.name, email: a.email, status: a.status },
        text: `network account ${a.id} added (${a.network}, ${a.name})`,
      };
    },
  },
  projectList(
    'network-accounts',
    "list a project's ad-network accounts",
    (deps, id) => listNetworkAccounts(deps.sql, id),
    (a) => ({ id: a.id, network: a.network, name: a.name, email: a.email, status: a.status }),
    ['id', 'network', 'name', 'email', 'status'],
    (a) => [String(a.id), a.network, a.name, a.email, a.status],
  ),
  {
    path: ['signing-keys', 'create'],
    summary: 'issue an SDK signing key for IOS or ANDROID; prints the key id and secret (shown once)',
    needs: 'postgres',
    flags: { ...PROJECT, platform: { type: 'string', required: true, description: 'IOS or ANDROID' } },
    run: async (deps, f) => {
      const k = await createSigningKey(deps, str(f, 'project'), { platform: str(f, 'platform') });
      return {
        json: { project_id: k.projectId, ...signingKeyJson(k), secret_key: k.secret },
        text: `signing key ${k.keyId} (${k.platform})\n  key id:     ${k.keyId}\n  secret key: ${k.secret}\n  (the secret is shown only now; give both to the SDK's initialize)`,
      };
    },
  },
  projectList(
    'signing-keys',
    "list a project's SDK signing keys (never their secrets)",
    (deps, id) => listSigningKeys(deps.sql, id),
    signingKeyJson,
    ['key_id', 'platform', 'active', 'created_at'],
    (k) => [k.keyId, k.platform, k.active ? 'yes' : 'no', k.createdAt.toISOString()],
  ),
  {
    path: ['signing-keys', 'revoke'],
    summary: 'deactivate an SDK signing key; requests signed with it are refused from now on',
    needs: 'postgres',
    flags: { ...PROJECT, 'key-id': { type: 'string', required: true, description: 'key id (lrk_...)' } },
    run: async (deps, f) => {
      const k = await revokeSigningKey(deps, str(f, 'project'), str(f, 'key-id'));
      return { json: signingKeyJson(k), text: `signing key ${k.keyId} (${k.platform}) revoked` };
    },
  },
];
