// Scaled out: `projects rotate-key` run by two processes at once over one Postgres (two
// operators, or two CLI containers: README "Give separate processes DATABASE_URL too: they must
// share one Postgres"). README Security notes: "Rotating revokes every earlier key of the project."
// Each rotation revoked the keys its statement saw and inserted its own; the other rotation's new
// key was not yet committed, so it was never revoked and two new keys stayed valid (now the
// rotation holds the project's row: lockProjectRow).
import { describe, expect, it } from 'vitest';
import { rotateServerKey } from '../../src/domain/projects/rotate-server-key.ts';
import { type Harness, newProject } from '../support/harness.ts';
import { hasRedis, useTwoInstances } from './instances.ts';

let a: Harness;
let b: Harness;
useTwoInstances({ RATE_LIMITS_ENABLED: 'false' }, (x, y) => {
  a = x;
  b = y;
});

describe.skipIf(!hasRedis)('rotate-key from two processes at once', () => {
  it('when two processes rotate the same project at the same moment, then only one server key still authenticates', async () => {
    // Up to five tries: the race needs both rotations' transactions open together.
    let statuses: number[] = [];
    for (let round = 0; round < 5; round++) {
      const p = await newProject(a.deps);
      const [r1, r2] = await Promise.all([
        rotateServerKey(a.deps, p.project.id),
        rotateServerKey(b.deps, p.project.id),
      ]);
      statuses = await Promise.all(
        [r1.serverKey, r2.serverKey, p.serverKey].map(
          async (key) =>
            (await b.app.inject({ method: 'GET', url: '/api/v1/campaigns', headers: { 'service-key': key } }))
              .statusCode,
        ),
      );
      if (statuses.filter((s) => s === 200).length !== 1) {
        break;
      }
    }
    // One of the two new keys is the last rotation's; the other one and the original are revoked.
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses[2]).toBe(401);
  });
});
