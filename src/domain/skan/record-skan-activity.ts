// Records one sign-up / event / payment of an iOS install in its SKAN window and re-evaluates the
// project's current schema. Runs inside the caller's transaction (the one that stored the fact),
// so the counters and values move with the fact or not at all. Android and unknown installs, and
// activity after day 35, change nothing. Without a schema the counters are still kept, so a schema
// set later (and `skan dry-run`) sees them.
import type { Sql } from '../../store/postgres/pool.ts';
import {
  addSkanActivity,
  findCurrentSkanSchema,
  lockSkanInstall,
  readSkanActivity,
  saveSkanValues,
} from '../../store/postgres/skan.ts';
import { daysSince, evaluateSchema, mergeValues, type SkanValues, windowOf } from './evaluate-schema.ts';
import { skanSchemaSchema } from './schema.ts';
import { storedValues } from './stored-values.ts';
import { windowActivity } from './window-activity.ts';

export type SkanActivity = { kind: 'signup' | 'event' | 'revenue'; name: string; amount: string };

export async function recordSkanActivity(
  tx: Sql,
  projectId: string,
  installInstanceId: string,
  activity: SkanActivity,
  nowMs: number,
): Promise<SkanValues | undefined> {
  const install = await lockSkanInstall(tx, projectId, installInstanceId);
  if (install?.platform !== 'IOS') {
    return undefined;
  }
  const days = daysSince(install.createdAt.getTime(), nowMs);
  const windowIndex = windowOf(days);
  if (windowIndex === null) {
    return undefined;
  }
  await addSkanActivity(tx, { projectId, installInstanceId, windowIndex, ...activity });
  const stored = await findCurrentSkanSchema(tx, projectId);
  const parsed = stored ? skanSchemaSchema.safeParse(stored.schema) : undefined;
  if (!parsed?.success) {
    return undefined;
  }
  const rows = await readSkanActivity(tx, projectId, installInstanceId);
  const next = evaluateSchema(parsed.data, windowActivity(rows, windowIndex), days);
  if (!next) {
    return undefined;
  }
  const merged = mergeValues(storedValues(install), next);
  await saveSkanValues(tx, projectId, installInstanceId, merged);
  return merged;
}
