// Connects a project to its Meta dataset (Conversions API): dataset id, access token (sealed
// under SECRETS_KEY, never shown back: only a fingerprint), optional Graph API version, and the
// active switch. Turning it active stamps activated_at: only facts recorded from then on are sent.
import { createHash } from 'node:crypto';
import type { PgDeps } from '../../deps.ts';
import { encryptSecret, loadSecretsKey } from '../../lib/secrets.ts';
import { upsertMetaConnection } from '../../store/postgres/connections.ts';
import { InputError } from '../projects/input-error.ts';
import { requireProject } from '../projects/require-project.ts';
import { metaTokenContext } from './send-meta-batch.ts';

export type MetaConnectionInput = {
  datasetId: string;
  accessToken: string;
  graphVersion: string | null;
  active: boolean;
};

export type MetaConnectionSummary = {
  datasetId: string;
  graphVersion: string | null;
  active: boolean;
  activatedAt: Date | null;
  tokenFingerprint: string;
};

/** The first broken rule of the input, in flag terms, or undefined. */
export function checkMetaConnection(i: MetaConnectionInput): string | undefined {
  if (!/^\d{1,32}$/.test(i.datasetId)) {
    return 'dataset_id must be the numeric id of the Meta dataset';
  }
  if (!/^[A-Za-z0-9_-]{20,1024}$/.test(i.accessToken)) {
    return 'access_token must be a Conversions API access token (20 to 1024 letters, digits, _ or -)';
  }
  if (i.graphVersion !== null && !/^v\d+\.\d+$/.test(i.graphVersion)) {
    return 'graph_version must look like v21.0';
  }
  return undefined;
}

export async function setMetaConnection(
  deps: Pick<PgDeps, 'sql' | 'config'> & { now: () => number },
  projectId: string,
  input: MetaConnectionInput,
): Promise<MetaConnectionSummary> {
  const problem = checkMetaConnection(input);
  if (problem) {
    throw new InputError(problem);
  }
  await requireProject(deps, projectId);
  const sealed = encryptSecret(await loadSecretsKey(deps.config), input.accessToken, metaTokenContext(projectId));
  const c = await upsertMetaConnection(
    deps.sql,
    {
      projectId,
      datasetId: input.datasetId,
      accessTokenEnc: sealed,
      graphVersion: input.graphVersion,
      active: input.active,
    },
    new Date(deps.now()),
  );
  return {
    datasetId: c.datasetId,
    graphVersion: c.graphVersion,
    active: c.active,
    activatedAt: c.activatedAt,
    tokenFingerprint: createHash('sha256').update(input.accessToken).digest('hex').slice(0, 12),
  };
}
