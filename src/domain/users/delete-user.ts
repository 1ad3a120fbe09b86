// GDPR deletion (catalog D9; issue: "deletes one user's data from Postgres, the ClickHouse raw
// tables and every derived table, and the caches, and reports what it removed"). In order:
// 1. Find the user's installs, winning clicks and ad ids in Postgres, plus the installs its facts
//    name in ClickHouse (so a re-run after a failure half-way still finds what is left). An install
//    another user is tied to now (a shared device) is not the user's and stays. The device's other
//    clicks go too: those its decisions considered, and those carrying its ad id (read here, before
//    Postgres forgets the installs), found again before the ClickHouse deletes for late arrivals.
//    An unfinished deletion of the user (a re-run after a failure) adds the installs and ad ids
//    it had found, which Postgres no longer holds.
// 2. Wait, briefly, for fact-writer batches holding the user's facts: their insert may be landing.
// 3. Postgres, in one transaction: user, installs, payments, outbox and dead-letter facts; the
//    installs and ad ids are kept in user_deletions until step 4 leaves nothing of the user.
// 4. ClickHouse: each table of USER_DATA_TABLES (raw tables and view targets; views never follow
//    deletes) is counted and, when it holds rows, deleted from with a mutation the call waits for;
//    counted again, and deleted again if a late insert landed meanwhile.
// 5. The 24 h attribution-data cache of each install: cleared before step 3 too, so that a cache
//    that cannot be reached (Redis away) fails the deletion before anything is deleted, and it can
//    be retried: cleared only at the end, a failure left the install served from the cache for 24 h
//    and a retry found nothing left to delete. Cleared again at the end, as attribution-data may
//    have cached the answer meanwhile.
import type { Deps } from '../../deps.ts';
import {
  countUserRowsIn,
  deleteUserRowsIn,
  findDecisionClickIds,
  findLinkedClickIds,
  findUserInstallIds,
  type UserKeys,
} from '../../store/clickhouse/user-data.ts';
import { asSql } from '../../store/postgres/pool.ts';
import type { Project } from '../../store/postgres/projects.ts';
import {
  batchesStillClaimed,
  deleteUserRows,
  findClaimedUserBatches,
  findInstallsOfOtherUsers,
  findUnfinishedDeletion,
  findUserFootprint,
  markDeletionFinished,
  markDeletionUnfinished,
  type UserRowsDeleted,
} from '../../store/postgres/user-data.ts';
import { USER_DATA_TABLES } from '../facts/tables.ts';
import { attributionCacheKey } from '../identity/read-attribution.ts';

export type UserDeletion = {
  userId: string;
  installIds: string[];
  postgres: UserRowsDeleted;
  /** Rows removed per ClickHouse table. */
  clickhouse: Record<string, number>;
  /** Rows still matching after the deletes (0 unless facts kept landing). */
  clickhouseRemaining: number;
  cacheKeys: number;
};

type DeleteDeps = Pick<Deps, 'sql' | 'ch' | 'cache' | 'log'>;

/** The attribution-data cache could not be cleared: nothing of the user was deleted yet. */
export class CacheUnavailableError extends Error {}
const MAX_ROUNDS = 3;
const uniq = (xs: string[]) => [...new Set(xs)];
/** The keys of the user's ClickHouse rows, and its installs' ad ids (read while Postgres has them). */
type Keys = UserKeys & { adIds: string[] };

async function findKeys(deps: DeleteDeps, project: Project, userId: string) {
  const pg = await findUserFootprint(deps.sql, project.id, userId);
  const unfinished = await findUnfinishedDeletion(deps.sql, project.id, userId);
  const named = uniq([...(await findUserInstallIds(deps.ch, project.id, userId)), ...(unfinished?.installIds ?? [])]);
  const others = await findInstallsOfOtherUsers(deps.sql, project.id, userId, named);
  const installIds = uniq([...pg.installIds, ...named.filter((i) => !others.has(i))]);
  const won = await findDecisionClickIds(deps.ch, project.id, installIds);
  const clickIds = uniq([...pg.clickIds, ...won]);
  const adIds = uniq([...pg.adIds, ...(unfinished?.adIds ?? [])]);
  const keys: Keys = { projectId: project.id, userId, installIds, clickIds, adIds };
  return { pg, unfinished: unfinished !== undefined, keys: await withLinkedClicks(deps, keys) };
}

async function withLinkedClicks(deps: DeleteDeps, keys: Keys): Promise<Keys> {
  const linked = await findLinkedClickIds(deps.ch, keys.projectId, keys.installIds, keys.adIds);
  return { ...keys, clickIds: uniq([...keys.clickIds, ...linked]) };
}

async function waitForWriters(deps: DeleteDeps, project: Project, keys: Keys, waitMs: number): Promise<void> {
  const batches = await findClaimedUserBatches(deps.sql, project.id, keys.userId, keys);
  const until = Date.now() + waitMs;
  while ((await batchesStillClaimed(deps.sql, batches)) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function deleteFromClickHouse(deps: DeleteDeps, keys: UserKeys) {
  const removed: Record<string, number> = {};
  let remaining = 0;
  for (const t of USER_DATA_TABLES) {
    removed[t.table] = 0;
    for (let round = 0; round <= MAX_ROUNDS; round++) {
      const n = await countUserRowsIn(deps.ch, t.table, t.by, keys);
      if (n === 0) {
        break;
      }
      if (round === MAX_ROUNDS) {
        remaining += n;
        deps.log.error({ table: t.table, rows: n }, 'user deletion: rows still arriving; run it again');
        break;
      }
      await deleteUserRowsIn(deps.ch, t.table, t.by, keys);
      removed[t.table] = (removed[t.table] ?? 0) + n;
    }
  }
  return { removed, remaining };
}

/** Deletes the user's data everywhere; undefined when the project holds nothing about the user. */
export async function deleteUser(
  deps: DeleteDeps,
  project: Project,
  userId: string,
  opts: { writerWaitMs?: number } = {},
): Promise<UserDeletion | undefined> {
  const { pg, unfinished, keys } = await findKeys(deps, project, userId);
  const before = await Promise.all(USER_DATA_TABLES.map((t) => countUserRowsIn(deps.ch, t.table, t.by, keys)));
  const found = pg.hasUser || pg.payments > 0 || unfinished || keys.installIds.length > 0 || before.some((n) => n > 0);
  if (!found) {
    return undefined;
  }
  const cacheKeys = keys.installIds.map((id) => attributionCacheKey(project.id, id));
  const clearCache = () => Promise.all(cacheKeys.map((k) => deps.cache.del(k)));
  await clearCache().catch((err: Error) => {
    throw new CacheUnavailableError(`the attribution cache cannot be cleared: ${err.message}`, { cause: err });
  });
  await waitForWriters(deps, project, keys, opts.writerWaitMs ?? 10_000);
  const postgres = await deps.sql.begin(async (tx) => {
    await markDeletionUnfinished(asSql(tx), project.id, userId, keys);
    return deleteUserRows(asSql(tx), project.id, userId, keys);
  });
  const ch = await deleteFromClickHouse(deps, await withLinkedClicks(deps, keys));
  if (ch.remaining === 0) {
    await markDeletionFinished(deps.sql, project.id, userId);
  }
  await clearCache().catch((err: Error) =>
    deps.log.error(
      { err: err.message, installs: cacheKeys.length },
      'user deletion: the cache could not be cleared again',
    ),
  );
  deps.log.info({ project: project.id, installs: keys.installIds.length }, 'user data deleted');
  return {
    userId,
    installIds: keys.installIds,
    postgres,
    clickhouse: ch.removed,
    clickhouseRemaining: ch.remaining,
    cacheKeys: keys.installIds.length,
  };
}
