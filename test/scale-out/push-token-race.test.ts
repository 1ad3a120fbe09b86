// Scaled out: update-push-token for one token from two installs at once, on two API instances
// over one Postgres and Redis (README "Roles and scaling out": any number of ROLE=api processes
// behind a load balancer). README "Uninstall tracking": "A push token belongs to one install per
// project: the one that sent it last. An iOS reinstall gets a new install_instance_id but often
// keeps its APNs token; the older install loses the token, so the device gets one push a day and
// one removal counts as one uninstall." When the two saves ran at the same moment, neither saw
// the other's uncommitted token, so both installs kept it (now they wait for each other:
// lockPushToken).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { init, post } from '../support/client.ts';
import { type Harness, newProject } from '../support/harness.ts';
import { hasRedis, useTwoInstances } from './instances.ts';

let a: Harness;
let b: Harness;
useTwoInstances({ RATE_LIMITS_ENABLED: 'false' }, (x, y) => {
  a = x;
  b = y;
});

const apnsToken = () => randomUUID().replaceAll('-', '').padEnd(64, '0');

describe.skipIf(!hasRedis)('update-push-token on two instances at once', () => {
  it('when two installs send the same push token to two instances at the same moment, then only one install holds it', async () => {
    // The race needs both saves in flight together: up to three rounds of 80 pairs, each a new project.
    let doubled: { push_token: string; n: number }[] = [];
    for (let round = 0; round < 3 && doubled.length === 0; round++) {
      const p = await newProject(a.deps);
      const pairs = Array.from({ length: 80 }, () => ({ old: randomUUID(), fresh: randomUUID(), token: apnsToken() }));
      for (const { old, fresh } of pairs) {
        expect((await init(a, p.token, { platform: 'IOS', install_instance_id: old })).statusCode).toBe(202);
        expect((await init(a, p.token, { platform: 'IOS', install_instance_id: fresh })).statusCode).toBe(202);
      }
      const send = (h: Harness, iid: string, token: string) =>
        post(h, 'update-push-token', { token: p.token, platform: 'IOS', install_instance_id: iid, push_token: token });

      const answers = await Promise.all(
        pairs.flatMap(({ old, fresh, token }) => [send(a, old, token), send(b, fresh, token)]),
      );

      expect(answers.map((r) => r.statusCode)).toEqual(answers.map(() => 200));
      doubled = (
        await a.deps.sql<{ push_token: string; n: number }[]>`
          SELECT push_token, count(*)::int AS n FROM installs
          WHERE project_id = ${p.project.id} AND push_token IS NOT NULL GROUP BY push_token HAVING count(*) > 1`
      ).map((r) => ({ ...r }));
    }
    // Every token has exactly one holder: no token is held by two installs.
    expect(doubled).toEqual([]);
  });
});
