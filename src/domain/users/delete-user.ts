// GDPR deletion (catalog D9; issue: "deletes one user's data from Postgres, the ClickHouse raw
// tables and every derived table, and the caches, and reports what it removed"). In order:
// 1. Find the user's installs, winning clicks and ad ids in Postgres, plus the installs its facts
//    name in ClickHouse (so a re-run after a failure half-way still finds what is left). An install
//    another user is tied to now (a shared device) is not the user's and stays. The device's other
//    clicks go too: those its decisions considered, and those carrying its ad id (read here, before
//    Postgres forgets the installs), found again before the ClickHouse deletes for late arrivals.
//    An unfinished deletion of the user (a re-run after a failure) adds what it had found and
//    deleted, which Postgres no longer holds. The browsers the user was identified on (Web SDK)
//    come from ClickHouse and from web events still in the outbox or dead-lettered; a user known
//    only from such waiting facts is found too.
// 2. Postgres, in one transaction: user, payments, deliveries, installs, outbox and dead-letter
//    facts, in an order that waits for the writers under way (store/postgres/user-data.ts); a
//    capture that resolved the user before stores nothing after (it reads the user again in its
//    insert). What ClickHouse still needs is kept in user_deletions until step 4 leaves nothing.
// 3. Wait for the fact-writer batches holding outbox rows step 2 deleted: a writer that read them
//    before may be inserting them into ClickHouse. Their claims say which, however late they came.
// 4. ClickHouse: each table of USER_DATA_TABLES (raw tables, view targets, as views never follow
//    deletes, and the delivery log) is counted and, when it holds rows, deleted from with a mutation
//    the call waits for; counted again, and deleted again if a late insert landed meanwhile. A batch
//    of step 3 still claimed now (an insert may take up to CH_TIMEOUT_MS, and land even after) is
//    reported as remaining, and user_deletions kept, so a re-run finishes the work.
// 5. The installs' attribution jobs in the queue (BullMQ keeps their data in Redis), and the 24 h
//    attribution-data cache of each install (and its network-retry counters): the cache is cleared
//    before step 2 too, so that a cache that cannot be reached (Redis away) fails the deletion
//    before anything is deleted, and it can be retried: cleared only at the end, a failure left the
//    install served from the cache for 24 h and a retry found nothing left to delete. Cleared again
//    at the end; an answer read before step 2 and cached after that is dropped by attribution-data
//    itself (identity/read-attribution.ts).
import type { Deps } from '../../deps.ts';
import { discardAttribution } from '../../queue/enqueue.ts';
import {
  countUserRowsIn,
  deleteUserRowsIn,
  findDecisionClickIds,
  findLinkedClickIds,
  findUserInstallIds,
  findUserVisitorIds,
  type UserKeys,
} from '../../store/clickhouse/user-data.ts';
import { asSql } from '../../store/postgres/pool.ts';
import type { Project } from '../../store/postgres/projects.ts';
import {
  countClaimedRows,
  countUserFacts,
  deleteUserRows,
  findInstallsOfOtherUsers,
  findUnfinishedDeletion,
  findUserFootprint,
  findWaitingVisitorIds,
  markDeletionFinished,
  markDeletionUnfinished,
  type UnfinishedDeletion,
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
  /**
   * Rows still matching after the deletes, plus the user's rows a fact writer still holds (they may
   * land yet): 0 unless facts kept landing. Above 0 the deletion stays open: run it again.
   */
  clickhouseRemaining: number;
  /** Cached attribution-data answers removed (installs with nothing cached are not counted). */
  cacheKeys: number;
};

type DeleteDeps = Pick<Deps, 'sql' | 'ch' | 'cache' | 'log' | 'queue'>;

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
  const visitorIds = uniq([
    ...(await findWaitingVisitorIds(deps.sql, project.id, userId)),
    ...(unfinished?.visitorIds ?? []),
  ]);
  const keys = await withLinkedClicks(deps, { projectId: project.id, userId, installIds, clickIds, adIds, visitorIds });
  const waiting = await countUserFacts(deps.sql, project.id, userId, keys);
  return { pg, unfinished, keys, waiting };
}

/** The device's other clicks, and the browsers the user was identified on (Web SDK). */
async function withLinkedClicks(deps: DeleteDeps, keys: Keys): Promise<Keys> {
  const linked = await findLinkedClickIds(deps.ch, keys.projectId, keys.installIds, keys.adIds);
  const visitors = await findUserVisitorIds(deps.ch, keys.projectId, keys.userId);
  return {
    ...keys,
    clickIds: uniq([...keys.clickIds, ...linked]),
    visitorIds: uniq([...(keys.visitorIds ?? []), ...visitors]),
  };
}

/** Waits, up to waitMs, until no fact writer holds any of the deleted outbox rows `seqs`. */
async function waitForWriters(deps: DeleteDeps, seqs: string[], waitMs: number): Promise<void> {
  const until = Date.now() + waitMs;
  while ((await countClaimedRows(deps.sql, seqs)) > 0 && Date.now() < until) {
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

// The attribution resolvers' retry counters (domain/attribution/resolvers.ts spendRetry), per method.
const RETRY_METHODS = ['meta_referrer', 'apple_search_ads'];

/** Clears the installs' cache entries; answers how many attribution-data answers were cached. */
async function clearCache(deps: DeleteDeps, projectId: string, installIds: string[]): Promise<number> {
  const held = await Promise.all(
    installIds.map(async (id) => {
      const key = attributionCacheKey(projectId, id);
      const had = (await deps.cache.get(key)) !== undefined;
      await deps.cache.del(key);
      await Promise.all(RETRY_METHODS.map((m) => deps.cache.del(`network-retry:${projectId}:${id}:${m}`)));
      return had ? 1 : 0;
    }),
  );
  return held.reduce<number>((a, b) => a + b, 0);
}

/** Postgres: the user's rows go, and what ClickHouse still needs is kept until it is done. */
async function deleteFromPostgres(deps: DeleteDeps, project: Project, keys: Keys, before?: UnfinishedDeletion) {
  const gone = await deps.sql.begin(async (tx) => {
    const g = await deleteUserRows(asSql(tx), project.id, keys.userId, keys);
    const found = {
      installIds: keys.installIds,
      adIds: keys.adIds,
      factSeqs: g.factSeqs,
      deliveryIds: g.deliveryIds,
      visitorIds: keys.visitorIds ?? [],
    };
    await markDeletionUnfinished(asSql(tx), project.id, keys.userId, found);
    return g;
  });
  return {
    deleted: gone.deleted,
    factSeqs: uniq([...gone.factSeqs, ...(before?.factSeqs ?? [])]),
    deliveryIds: uniq([...gone.deliveryIds, ...(before?.deliveryIds ?? [])]),
  };
}

/** Deletes the user's data everywhere; undefined when the project holds nothing about the user. */
export async function deleteUser(
  deps: DeleteDeps,
  project: Project,
  userId: string,
  opts: { writerWaitMs?: number } = {},
): Promise<UserDeletion | undefined> {
  const { pg, unfinished, keys, waiting } = await findKeys(deps, project, userId);
  const before = await Promise.all(USER_DATA_TABLES.map((t) => countUserRowsIn(deps.ch, t.table, t.by, keys)));
  const found =
    pg.hasUser ||
    pg.payments > 0 ||
    unfinished !== undefined ||
    keys.installIds.length > 0 ||
    waiting > 0 ||
    before.some((n) => n > 0);
  if (!found) {
    return undefined;
  }
  const cached = await clearCache(deps, project.id, keys.installIds).catch((err: Error) => {
    throw new CacheUnavailableError(`the attribution cache cannot be cleared: ${err.message}`, { cause: err });
  });
  const postgres = await deleteFromPostgres(deps, project, keys, unfinished);
  await waitForWriters(deps, postgres.factSeqs, opts.writerWaitMs ?? 10_000);
  const chKeys = { ...(await withLinkedClicks(deps, keys)), deliveryIds: postgres.deliveryIds };
  const ch = await deleteFromClickHouse(deps, chKeys);
  // Rows a writer still holds may land after the deletes: reported, and the deletion stays open.
  const arriving = await countClaimedRows(deps.sql, postgres.factSeqs);
  if (arriving > 0) {
    deps.log.error({ rows: arriving }, 'user deletion: a fact writer still holds rows of the user; run it again');
  }
  const remaining = ch.remaining + arriving;
  if (remaining === 0) {
    await markDeletionFinished(deps.sql, project.id, userId);
  }
  await Promise.all(keys.installIds.map((id) => discardAttribution(deps, project.id, id))).catch((err: Error) =>
    deps.log.error({ err: err.message }, 'user deletion: the attribution jobs could not be removed'),
  );
  const cachedAgain = await clearCache(deps, project.id, keys.installIds).catch((err: Error) => {
    deps.log.error(
      { err: err.message, installs: keys.installIds.length },
      'user deletion: the cache could not be cleared again',
    );
    return 0;
  });
  deps.log.info({ project: project.id, installs: keys.installIds.length }, 'user data deleted');
  return {
    userId,
    installIds: keys.installIds,
    postgres: postgres.deleted,
    clickhouse: ch.removed,
    clickhouseRemaining: remaining,
    cacheKeys: cached + cachedAgain,
  };
}
