// lib/micro-batch.ts: calls that arrive while a batch runs go into the next batch together; a
// batch that failed for an item's sake (BatchItemsFailed) re-runs item by item, so only the bad
// item's call fails, with its own error; any other failure rejects the whole batch, never re-run.
import { describe, expect, it } from 'vitest';
import { BatchItemsFailed, batcherPerOwner, microBatcher, settleAll } from '../../src/lib/micro-batch.ts';

/** A batch function that records its batches and waits until released. */
function recorder(fail?: (items: number[]) => unknown) {
  const batches: number[][] = [];
  let release = () => {};
  let gate = new Promise<void>((r) => {
    release = r;
  });
  const run = async (items: number[]) => {
    batches.push(items);
    await gate;
    const err = fail?.(items);
    if (err) {
      throw err;
    }
    return items.map((i) => i * 10);
  };
  const open = () => {
    release();
    gate = Promise.resolve();
  };
  return { batches, run, open };
}

describe('microBatcher', () => {
  it('when calls arrive while the only lane is busy, then they run as one batch and each gets its own output', async () => {
    // Arrange
    const r = recorder();
    const call = microBatcher({ lanes: 1, maxItems: 100, run: r.run });
    // Act
    const outs = Promise.all([1, 2, 3, 4].map(call));
    r.open();
    // Assert
    expect(await outs).toEqual([10, 20, 30, 40]);
    expect(r.batches).toEqual([[1], [2, 3, 4]]);
  });

  it('when more calls wait than maxItems, then they are split into batches of at most maxItems', async () => {
    const r = recorder();
    const call = microBatcher({ lanes: 1, maxItems: 2, run: r.run });
    const outs = Promise.all([1, 2, 3, 4, 5].map(call));
    r.open();
    expect(await outs).toEqual([10, 20, 30, 40, 50]);
    expect(r.batches).toEqual([[1], [2, 3], [4, 5]]);
  });

  it('when a batch throws BatchItemsFailed, then each item re-runs alone and only the bad one rejects, with its own error', async () => {
    // Arrange: item 3 fails wherever it is
    const r = recorder((items) => (items.includes(3) ? new BatchItemsFailed(new Error('item 3 refused')) : undefined));
    const call = microBatcher({ lanes: 1, maxItems: 100, run: r.run });
    // Act
    const settled = Promise.allSettled([1, 2, 3, 4].map(call));
    r.open();
    const results = await settled;
    // Assert
    expect(results.map((s) => (s.status === 'fulfilled' ? s.value : String(s.reason)))).toEqual([
      10,
      20,
      'Error: item 3 refused',
      40,
    ]);
    expect(r.batches).toEqual([[1], [2, 3, 4], [2], [3], [4]]);
  });

  it('when a batch throws anything else, then every call of it rejects with that error and nothing re-runs', async () => {
    const r = recorder((items) => (items.length > 1 ? new Error('COMMIT failed') : undefined));
    const call = microBatcher({ lanes: 1, maxItems: 100, run: r.run });
    const settled = Promise.allSettled([1, 2, 3].map(call));
    r.open();
    const results = await settled;
    expect(results.map((s) => (s.status === 'fulfilled' ? s.value : String(s.reason)))).toEqual([
      10,
      'Error: COMMIT failed',
      'Error: COMMIT failed',
    ]);
    expect(r.batches).toEqual([[1], [2, 3]]);
  });
});

describe('batcherPerOwner', () => {
  it('when calls name the same owner, then they share batches; another owner gets batches of its own', async () => {
    const runs = new Map<object, ReturnType<typeof recorder>>();
    const batcher = batcherPerOwner((owner: object) => {
      const r = recorder();
      runs.set(owner, r);
      return { lanes: 1, maxItems: 100, run: r.run };
    });
    const a = {};
    const b = {};

    const outs = Promise.all([batcher(a)(1), batcher(a)(2), batcher(a)(3), batcher(b)(4), batcher(b)(5)]);
    for (const r of runs.values()) {
      r.open();
    }

    expect(await outs).toEqual([10, 20, 30, 40, 50]);
    expect(batcher(a)).toBe(batcher(a));
    expect(runs.get(a)?.batches).toEqual([[1], [2, 3]]);
    expect(runs.get(b)?.batches).toEqual([[4], [5]]);
  });
});

describe('settleAll', () => {
  it('when one promise rejects, then it throws that error only after every promise settled', async () => {
    let lateDone = false;
    const late = new Promise<void>((r) =>
      setTimeout(() => {
        lateDone = true;
        r();
      }, 20),
    );
    await expect(settleAll([Promise.reject(new Error('first')), late])).rejects.toThrow('first');
    expect(lateDone).toBe(true);
  });
});
