// Group commit (pool.ts): transactions that arrive while the lanes are busy commit together.
// sql.begin bodies run one after another in the group; beginPipelined bodies run at once, their
// statements interleaved on the one connection. A failing body never takes the others down: the
// group rolls back and each body re-runs alone. The pool here has 2 connections, so one lane; a
// blocker transaction holds it while the bodies under test queue up behind it as one group.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beginPipelined, createPool, type Sql, type Tx } from '../../src/store/postgres/pool.ts';
import { processDatabaseUrl } from '../support/harness.ts';

let sql: Sql;
const table = `group_commit_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;

beforeAll(async () => {
  sql = createPool(await processDatabaseUrl(), 2);
  await sql.unsafe(`CREATE TABLE ${table} (seq bigserial PRIMARY KEY, body text NOT NULL, step int NOT NULL,
    txid bigint NOT NULL DEFAULT txid_current(), UNIQUE (body, step))`);
});

afterAll(async () => {
  await sql.unsafe(`DROP TABLE IF EXISTS ${table}`);
  await sql.end();
});

/** Holds the only lane until release() is called, so everything begun meanwhile forms one group. */
function holdLane(): { release: () => void; done: Promise<unknown> } {
  let release = () => {};
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const done = sql.begin(async (tx) => {
    await tx`SELECT 1`;
    await gate;
  });
  return { release, done };
}

function twoSteps(name: string) {
  return async (tx: Tx) => {
    await tx.unsafe(`INSERT INTO ${table} (body, step) VALUES ($1, 1)`, [name]);
    await tx.unsafe(`INSERT INTO ${table} (body, step) VALUES ($1, 2)`, [name]);
    return name;
  };
}

async function rowsOf(prefix: string) {
  return sql.unsafe<{ body: string; step: number; txid: string }[]>(
    `SELECT body, step, txid::text FROM ${table} WHERE body LIKE $1 ORDER BY seq`,
    [`${prefix}%`],
  );
}

describe('group commit', () => {
  it('when sql.begin bodies queue behind a busy lane, then they commit in one transaction, each body whole before the next', async () => {
    // Arrange
    const lane = holdLane();
    // Act
    const begun = ['s-a', 's-b', 's-c'].map((n) => sql.begin(twoSteps(n)));
    lane.release();
    const answers = await Promise.all(begun);
    await lane.done;
    // Assert
    expect(answers).toEqual(['s-a', 's-b', 's-c']);
    const rows = await rowsOf('s-');
    expect(rows.map((r) => `${r.body}:${r.step}`)).toEqual(['s-a:1', 's-a:2', 's-b:1', 's-b:2', 's-c:1', 's-c:2']);
    expect(new Set(rows.map((r) => r.txid)).size).toBe(1);
  });

  it('when beginPipelined bodies queue behind a busy lane, then they run at once in one transaction (statements interleaved)', async () => {
    // Arrange
    const lane = holdLane();
    // Act
    const begun = ['p-a', 'p-b', 'p-c'].map((n) => beginPipelined(sql, twoSteps(n)));
    lane.release();
    const answers = await Promise.all(begun);
    await lane.done;
    // Assert
    expect(answers).toEqual(['p-a', 'p-b', 'p-c']);
    const rows = await rowsOf('p-');
    expect(rows.map((r) => `${r.body}:${r.step}`)).toEqual(['p-a:1', 'p-b:1', 'p-c:1', 'p-a:2', 'p-b:2', 'p-c:2']);
    expect(new Set(rows.map((r) => r.txid)).size).toBe(1);
  });

  it('when one pipelined body fails, then it alone rejects with its error and the others are committed whole', async () => {
    // Arrange: f-b's second step collides with a row committed before, so its statement fails
    await sql.unsafe(`INSERT INTO ${table} (body, step) VALUES ('f-b', 2)`);
    const lane = holdLane();
    // Act
    const begun = ['f-a', 'f-b', 'f-c'].map((n) => beginPipelined(sql, twoSteps(n)));
    const sequential = sql.begin(twoSteps('f-d'));
    lane.release();
    const settled = await Promise.allSettled([...begun, sequential]);
    await lane.done;
    // Assert
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect(String((settled[1] as PromiseRejectedResult).reason)).toMatch(/duplicate key/);
    const rows = await rowsOf('f-');
    expect(rows.map((r) => `${r.body}:${r.step}`).sort()).toEqual([
      'f-a:1',
      'f-a:2',
      'f-b:2',
      'f-c:1',
      'f-c:2',
      'f-d:1',
      'f-d:2',
    ]);
  });
});

describe('deadlock victims', () => {
  it('when two transactions lock two rows in opposite orders, then the victim runs again and both commit', async () => {
    // Two pools, so the two bodies cannot share a commit group: each takes one row, waits until the
    // other holds its row, then asks for the other's. Postgres aborts one (40P01) after
    // deadlock_timeout; its body runs again once the other has committed.
    const other = createPool(await processDatabaseUrl(), 2);
    try {
      const key = `dl-${Math.random().toString(36).slice(2, 8)}`;
      await sql.unsafe(`INSERT INTO ${table} (body, step) VALUES ($1, 1), ($1, 2)`, [key]);
      const held: Record<'a' | 'b', () => void> = { a: () => {}, b: () => {} };
      const holds = {
        a: new Promise<void>((r) => {
          held.a = r;
        }),
        b: new Promise<void>((r) => {
          held.b = r;
        }),
      };
      const runs = { a: 0, b: 0 };
      const crosswise = (me: 'a' | 'b', first: number, then: number, peer: 'a' | 'b') => async (tx: Tx) => {
        runs[me]++;
        await tx.unsafe(`UPDATE ${table} SET txid = txid_current() WHERE body = $1 AND step = $2`, [key, first]);
        held[me]();
        await holds[peer];
        await tx.unsafe(`UPDATE ${table} SET txid = txid_current() WHERE body = $1 AND step = $2`, [key, then]);
        return me;
      };

      const answers = await Promise.all([sql.begin(crosswise('a', 1, 2, 'b')), other.begin(crosswise('b', 2, 1, 'a'))]);

      expect(answers).toEqual(['a', 'b']);
      expect(runs.a + runs.b).toBe(3);
      const rows = await rowsOf(key);
      expect(rows).toHaveLength(2);
      // Each row was last written by one transaction: the one that ran last took both.
      expect(new Set(rows.map((r) => r.txid)).size).toBe(1);
    } finally {
      await other.end();
    }
  });
});
