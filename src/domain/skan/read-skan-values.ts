// The values a client response carries for the requesting install: only iOS installs that have
// been evaluated at least once (real-clients §3: iOS reads them; Android's DTOs do not expect them).
import type { Deps } from '../../deps.ts';
import { findSkanInstall } from '../../store/postgres/skan.ts';
import type { SkanValues } from './evaluate-schema.ts';
import { storedValues } from './stored-values.ts';

export async function readSkanValues(
  deps: Pick<Deps, 'sql'>,
  projectId: string,
  installInstanceId: string | null,
  sentPlatform?: string,
): Promise<SkanValues | undefined> {
  // An app that says it is Android is answered without the lookup (one round trip per request).
  if (installInstanceId === null || sentPlatform === 'ANDROID') {
    return undefined;
  }
  const install = await findSkanInstall(deps.sql, projectId, installInstanceId);
  if (install?.platform !== 'IOS') {
    return undefined;
  }
  return storedValues(install) ?? undefined;
}
