// Connects a project to an analytics vendor: its key (Braze REST API key with users.track, Mixpanel
// project token, Amplitude API key, PostHog project API key, GA4 Measurement Protocol api_secret,
// CleverTap passcode) sealed under SECRETS_KEY and never shown back (a fingerprint is), where
// requests go, the account (GA4's firebase_app_id, CleverTap's account id: required for those two,
// refused for the others), and the active switch. Turning it active stamps activated_at: only users
// registered or updated from then on are sent.
import { createHash } from 'node:crypto';
import type { PgDeps } from '../../deps.ts';
import { encryptSecret, loadSecretsKey } from '../../lib/secrets.ts';
import {
  type AnalyticsConnection,
  type AnalyticsVendor,
  upsertAnalyticsConnection,
} from '../../store/postgres/analytics-connections.ts';
import { InputError } from '../projects/input-error.ts';
import { requireProject } from '../projects/require-project.ts';
import { resolveEndpoint } from './resolve-endpoint.ts';
import { analyticsKeyContext } from './send-analytics-batch.ts';
import { FIELDS } from './vendors.ts';

export type AnalyticsConnectionInput = {
  vendor: AnalyticsVendor;
  key: string;
  /** A region name, Braze's REST endpoint or a PostHog URL; null: the vendor's default (us; CleverTap eu1). */
  endpoint: string | null;
  /** GA4's firebase_app_id, CleverTap's account id; null for the other vendors. */
  accountId?: string | null;
  active: boolean;
};

const KEY = /^[A-Za-z0-9_\-.:]{8,512}$/;
/** A Firebase app id as the Firebase console shows it: 1:1234567890:android:0a1b2c3d4e5f67890. */
export const FIREBASE_APP_ID = /^\d{1,3}:\d{1,20}:(android|ios|web):[0-9a-f]{1,64}$/;
/** A CleverTap account id (its dashboard's Project ID): 865-K5W-R47Z, or TEST-865-K5W-R47Z for a test project. */
export const CLEVERTAP_ACCOUNT_ID = /^(TEST-)?[A-Z0-9]{3}-[A-Z0-9]{3}-[A-Z0-9]{4}$/;

/** The account each vendor that has one must name, and the rule's text after the field's name. */
const ACCOUNTS: Partial<Record<AnalyticsVendor, { pattern: RegExp; rule: string }>> = {
  ga4: { pattern: FIREBASE_APP_ID, rule: 'must be your Firebase app id, like 1:1234567890:android:0a1b2c3d4e5f6789' },
  clevertap: {
    pattern: CLEVERTAP_ACCOUNT_ID,
    rule: 'must be your CleverTap account id (Project ID), like 865-K5W-R47Z or TEST-865-K5W-R47Z',
  },
};

export const keyFingerprint = (key: string): string => createHash('sha256').update(key).digest('hex').slice(0, 12);

/** The resolved endpoint, or the first broken rule in the API body's terms (the CLI's are alike). */
export function checkAnalyticsConnection(i: AnalyticsConnectionInput): { endpoint: string } | { problem: string } {
  const f = FIELDS[i.vendor];
  if (!KEY.test(i.key)) {
    return { problem: `${f.key} must be 8 to 512 letters, digits, _, -, . or :` };
  }
  const account = ACCOUNTS[i.vendor];
  if (f.account && account && !account.pattern.test(i.accountId ?? '')) {
    return { problem: `${f.account} ${account.rule}` };
  }
  return resolveEndpoint(i.vendor, i.endpoint, f.endpoint);
}

export async function setAnalyticsConnection(
  deps: Pick<PgDeps, 'sql' | 'config'> & { now: () => number },
  projectId: string,
  input: AnalyticsConnectionInput,
): Promise<AnalyticsConnection> {
  const checked = checkAnalyticsConnection(input);
  if ('problem' in checked) {
    throw new InputError(checked.problem);
  }
  await requireProject(deps, projectId);
  const keyEnc = encryptSecret(
    await loadSecretsKey(deps.config),
    input.key,
    analyticsKeyContext(projectId, input.vendor),
  );
  return upsertAnalyticsConnection(
    deps.sql,
    {
      projectId,
      vendor: input.vendor,
      endpoint: checked.endpoint,
      accountId: FIELDS[input.vendor].account ? (input.accountId ?? '') : '',
      keyEnc,
      keyFingerprint: keyFingerprint(input.key),
      active: input.active,
    },
    new Date(deps.now()),
  );
}
