// Scaled out: `projects rotate-key` run by two processes at once over one Postgres (two
// operators, or two CLI containers: README "Give separate processes DATABASE_URL too: they must
// share one Postgres"). README Security notes: "Rotating revokes every earlier key of the project."
// Each rotation revoked the keys its statement saw and inserted its own; the other rotation's new
// key was not yet committed, so it was never revoked and two new keys stayed valid (now the
// rotation holds the project's row: lockProjectRow).
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { rotateServerKey } from '../../src/domain/projects/rotate-server-key.ts';
import { processRedisUrl } from '../support/client.ts';
import { closeHarness, type Harness, makeHarness, newProject } from '../support/harness.ts';

const hasRedis = Boolean(inject('redisUrl'));
let a: Harness;
let b: Harness;

beforeAll(async () => {
  if (!hasRedis) {
    return;
  }
  const env = { RATE_LIMITS_ENABLED: 'false', REDIS_URL: processRedisUrl() ?? '' };
  a = await makeHarness({ env });
  b = await makeHarness({ env });
});

afterAll(async () => {
  if (a) {
    await closeHarness(a);
  }
  if (b) {
    await closeHarness(b);
  }
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
