// The values a client response carries for the requesting install: only iOS installs that have
// been evaluated at least once (real-clients §3: iOS reads them; Android's DTOs do not expect them).
// They describe the install's current window: values stored in an earlier window keep their fine
// value (never lowered) but not that window's coarse value and lock, as a new window starts from
// its own (README "SKAdNetwork"); the window's first activity re-evaluates and stores them.
import type { Deps } from '../../deps.ts';
import { findSkanInstall } from '../../store/postgres/skan.ts';
import { daysSince, type SkanValues, windowOf } from './evaluate-schema.ts';
import { storedValues } from './stored-values.ts';

/** Past day 35 nothing is updated any more: the answer describes the last window (2). */
const LAST_WINDOW = 2;

export async function readSkanValues(
  deps: Pick<Deps, 'sql' | 'now'>,
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
  const stored = storedValues(install);
  if (!stored) {
    return undefined;
  }
  const window = windowOf(daysSince(install.createdAt.getTime(), deps.now())) ?? LAST_WINDOW;
  // Nothing recorded in this window yet: no rule can hold on an empty window, so low and unlocked;
  // the fine value is kept (never lowered).
  return stored.window >= window ? stored : { fine: stored.fine, coarse: 'low', lock: false, window };
}
