// Scaled out: the per-token client limit (README Rate limits: 25 / s per project token, "With
// REDIS_URL set, the counters live in Redis and all API processes share them") over two instances.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { init } from '../support/client.ts';
import { type Harness, newProject } from '../support/harness.ts';
import { hasRedis, useTwoInstances } from './instances.ts';

let a: Harness;
let b: Harness;
useTwoInstances({}, (x, y) => {
  a = x;
  b = y;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!hasRedis)('client limit over two instances', () => {
  it('when one token sends 40 inits in one second split over two instances, then 25 pass in total', async () => {
    let codes: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const p = await newProject(a.deps);
      while (Date.now() % 1000 >= 50) {
        await sleep(1000 - (Date.now() % 1000));
      }
      const window = Math.floor(Date.now() / 1000);
      const res = await Promise.all(
        Array.from({ length: 40 }, (_, i) => init(i % 2 ? a : b, p.token, { install_instance_id: randomUUID() })),
      );
      codes = res.map((r) => r.statusCode);
      if (Math.floor(Date.now() / 1000) === window) {
        break;
      }
    }
    expect(codes.filter((c) => c === 202)).toHaveLength(25);
    expect(codes.filter((c) => c === 429)).toHaveLength(15);
  });
});
