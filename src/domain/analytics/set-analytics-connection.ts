// Connects a project to an analytics vendor: its key (Braze REST API key with users.track, Mixpanel
// project token, Amplitude API key, PostHog project API key) sealed under SECRETS_KEY and never
// shown back (a fingerprint is), where requests go, and the active switch. Turning it active stamps
// activated_at: only users registered or updated from then on are sent.
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
  /** A region name, Braze's REST endpoint or a PostHog URL; null: the vendor's default (us). */
  endpoint: string | null;
  active: boolean;
};

const KEY = /^[A-Za-z0-9_\-.:]{8,512}$/;

export const keyFingerprint = (key: string): string => createHash('sha256').update(key).digest('hex').slice(0, 12);

/** The resolved endpoint, or the first broken rule in the API body's terms (the CLI's are alike). */
export function checkAnalyticsConnection(i: AnalyticsConnectionInput): { endpoint: string } | { problem: string } {
  const f = FIELDS[i.vendor];
  if (!KEY.test(i.key)) {
    return { problem: `${f.key} must be 8 to 512 letters, digits, _, -, . or :` };
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
      keyEnc,
      keyFingerprint: keyFingerprint(input.key),
      active: input.active,
    },
    new Date(deps.now()),
  );
}
