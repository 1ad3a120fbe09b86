// Analytics integrations (Braze, Mixpanel, Amplitude, PostHog, GA4, CleverTap): `connections set-analytics`,
// `connections list-analytics` and `connections remove-analytics`, as PUT, GET and DELETE
// /api/v1/connections/<vendor>. Postgres only: the delivery schedule of a running worker sends.
import { checkAnalyticsConnection, setAnalyticsConnection } from '../domain/analytics/set-analytics-connection.ts';
import { ANALYTICS_VENDORS, FIELDS, isAnalyticsVendor } from '../domain/analytics/vendors.ts';
import { InputError, trueOrFalse } from '../domain/projects/input-error.ts';
import { requireProject } from '../domain/projects/require-project.ts';
import {
  type AnalyticsConnection,
  type AnalyticsVendor,
  deleteAnalyticsConnection,
  findAnalyticsConnection,
} from '../store/postgres/analytics-connections.ts';
import { opt, PROJECT, str } from './command-kit.ts';
import type { CommandSpec } from './commands.ts';
import type { Flags } from './flags.ts';
import { table } from './table.ts';

const VENDOR = {
  vendor: { type: 'string', required: true, description: ANALYTICS_VENDORS.join(', ') },
} as const;

function vendorFlag(f: Flags): AnalyticsVendor {
  const v = str(f, 'vendor').trim().toLowerCase();
  if (!isAnalyticsVendor(v)) {
    throw new InputError(`--vendor must be one of ${ANALYTICS_VENDORS.join(', ')}`);
  }
  return v;
}

const ACCOUNT_NAMES: Partial<Record<AnalyticsVendor, string>> = {
  ga4: 'its Firebase app id',
  clevertap: 'its account id',
};
const ACCOUNT_ONLY = '--account-id is only for ga4 (its Firebase app id) and clevertap (its account id)';

/** The domain's rule text (in the API body's names: `project_token must …`) in flag terms. */
const asFlags = (vendor: AnalyticsVendor, problem: string): string => {
  const f = FIELDS[vendor];
  const flags: Record<string, string> = { [f.key]: '--key', [f.endpoint]: '--endpoint' };
  if (f.account) {
    flags[f.account] = '--account-id';
  }
  return problem.replace(new RegExp(`^(${Object.keys(flags).join('|')})\\b`), (m) => flags[m] ?? m);
};

const connectionJson = (projectId: string, c: AnalyticsConnection) => ({
  project_id: projectId,
  vendor: c.vendor,
  endpoint: c.endpoint,
  ...(c.accountId ? { account_id: c.accountId } : {}),
  active: c.active,
  activated_at: c.activatedAt?.toISOString() ?? null,
  key_fingerprint: c.keyFingerprint,
});

export const ANALYTICS_COMMANDS: CommandSpec[] = [
  {
    path: ['connections', 'set-analytics'],
    summary:
      "connect the project to Braze, Mixpanel, Amplitude, PostHog, GA4 or CleverTap: each registered user's install attribution is sent as user properties",
    needs: 'postgres',
    flags: {
      ...PROJECT,
      ...VENDOR,
      key: {
        type: 'string',
        required: true,
        description:
          'Braze REST API key (users.track), Mixpanel project token, Amplitude API key, PostHog project API key, GA4 Measurement Protocol API secret or CleverTap passcode (stored encrypted)',
      },
      endpoint: {
        type: 'string',
        description:
          'Braze: the REST endpoint (required); Mixpanel: us, eu or in; Amplitude: us or eu; PostHog: us, eu or a self-hosted https URL; GA4: us or eu (default us); CleverTap: eu1 (default), in1, sg1, us1, aps3 or mec1',
      },
      'account-id': {
        type: 'string',
        description:
          'GA4 and CleverTap only (required): the Firebase app id (1:…:android:… or 1:…:ios:…), the CleverTap account id (Project ID)',
      },
      active: { type: 'string', required: true, description: 'true or false' },
    },
    run: async (deps, f) => {
      const vendor = vendorFlag(f);
      const endpoint = opt(f, 'endpoint') ?? null;
      if (vendor === 'braze' && endpoint === null) {
        throw new InputError('--endpoint is required for braze (its REST endpoint)');
      }
      const account = opt(f, 'account-id')?.trim() ?? null;
      if ((account !== null) !== (FIELDS[vendor].account !== undefined)) {
        throw new InputError(
          account === null ? `--account-id is required for ${vendor} (${ACCOUNT_NAMES[vendor]})` : ACCOUNT_ONLY,
        );
      }
      const active = trueOrFalse('active', str(f, 'active'));
      const input = { vendor, key: str(f, 'key').trim(), endpoint, accountId: account, active };
      const checked = checkAnalyticsConnection(input);
      if ('problem' in checked) {
        throw new InputError(asFlags(vendor, checked.problem));
      }
      const c = await setAnalyticsConnection({ ...deps, now: Date.now }, str(f, 'project'), input);
      return {
        json: connectionJson(str(f, 'project'), c),
        text: `${vendor} ${c.endpoint} ${c.active ? 'active' : 'inactive'} (key ${c.keyFingerprint})`,
      };
    },
  },
  {
    path: ['connections', 'list-analytics'],
    summary: "the project's analytics connections (never their keys: fingerprints)",
    needs: 'postgres',
    flags: PROJECT,
    run: async (deps, f) => {
      const projectId = (await requireProject(deps, str(f, 'project'))).id;
      const found = await Promise.all(ANALYTICS_VENDORS.map((v) => findAnalyticsConnection(deps.sql, projectId, v)));
      const list = found.filter((c): c is AnalyticsConnection => c !== undefined);
      return {
        json: list.map((c) => connectionJson(projectId, c)),
        text: table(
          ['vendor', 'endpoint', 'active', 'key'],
          list.map((c) => [c.vendor, c.endpoint, String(c.active), c.keyFingerprint]),
        ),
      };
    },
  },
  {
    path: ['connections', 'remove-analytics'],
    summary: 'remove an analytics connection: its queued deliveries end dead, unsent',
    needs: 'postgres',
    flags: { ...PROJECT, ...VENDOR },
    run: async (deps, f) => {
      const vendor = vendorFlag(f);
      const projectId = (await requireProject(deps, str(f, 'project'))).id;
      const removed = await deleteAnalyticsConnection(deps.sql, projectId, vendor);
      return {
        json: { project_id: projectId, vendor, removed },
        text: removed ? `${vendor} connection removed` : `no ${vendor} connection was set; nothing removed`,
      };
    },
  },
];
