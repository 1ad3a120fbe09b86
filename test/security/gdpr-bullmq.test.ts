// GDPR deletion: reliability catalog D9, "After deleting user U: … the Redis attribution cache and
// any BullMQ jobs for U are purged." An install's attribution job (id `attr-<project>-<install>`,
// data {projectId, installInstanceId}) was kept in Redis after it ran (completed jobs for an hour,
// failed ones for a week); it is now removed when it ends (src/queue/names.ts), and the deletion
// removes one still waiting. Needs TEST_REDIS_URL (skipped without it).
import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { jobHandlers } from '../../jobs/worker.ts';
import { init, processRedisUrl } from '../support/client.ts';
import { signUp } from '../support/commerce.ts';
import { closeHarness, type Harness, makeHarness, newProject } from '../support/harness.ts';

/** Every key under bull:* whose name or value holds `marker`. */
async function bullKeysHolding(h: Harness, marker: string): Promise<string[]> {
  const redis = h.deps.redis;
  if (!redis) {
    return [];
  }
  const out: string[] = [];
  for (const key of await redis.keys('bull:*')) {
    const type = await redis.type(key);
    let text = '';
    if (type === 'hash') {
      text = JSON.stringify(await redis.hgetall(key));
    } else if (type === 'string') {
      text = String(await redis.get(key));
    } else if (type === 'list') {
      text = JSON.stringify(await redis.lrange(key, 0, -1));
    } else if (type === 'zset') {
      text = JSON.stringify(await redis.zrange(key, 0, -1));
    } else if (type === 'set') {
      text = JSON.stringify(await redis.smembers(key));
    } else if (type === 'stream') {
      text = JSON.stringify(await redis.xrange(key, '-', '+'));
    }
    if (key.includes(marker) || text.includes(marker)) {
      out.push(key);
    }
  }
  return out;
}

describe('D9: BullMQ jobs of a deleted user (needs TEST_REDIS_URL)', () => {
  it.skipIf(!inject('redisUrl'))(
    'when a user whose install went through the attribution queue is deleted, then no BullMQ job in Redis names the install',
    async () => {
      const h = await makeHarness({ env: { RATE_LIMITS_ENABLED: 'false', REDIS_URL: processRedisUrl() ?? '' } });
      try {
        expect(h.deps.queue.kind).toBe('bullmq');
        await h.deps.queue.startWorkers(jobHandlers(h.deps));
        const p = await newProject(h.deps);
        const iid = randomUUID();
        expect((await init(h, p.token, { install_instance_id: iid })).statusCode).toBe(202);
        for (let i = 0; i < 200; i += 1) {
          const [row] = await h.deps.sql<{ s: string }[]>`
            SELECT attribution_status AS s FROM installs WHERE project_id = ${p.project.id} AND install_instance_id = ${iid}`;
          if (row?.s === 'decided') {
            break;
          }
          await new Promise((r) => setTimeout(r, 50));
        }
        const userId = `bull-${randomUUID().slice(0, 8)}`;
        await signUp(h, p, iid, userId);

        const res = await h.app.inject({ method: 'DELETE', url: `/api/v1/users/${userId}`, headers: p.headers });

        expect(res.statusCode).toBe(200);
        expect(res.json().data.install_instance_ids).toEqual([iid]);
        expect(await bullKeysHolding(h, iid)).toEqual([]);
      } finally {
        await closeHarness(h);
      }
    },
    60_000,
  );

  it.skipIf(!inject('redisUrl'))(
    'when the install’s attribution job still waits in Redis (no worker ran it), then the deletion removes it',
    async () => {
      const h = await makeHarness({ env: { RATE_LIMITS_ENABLED: 'false', REDIS_URL: processRedisUrl() ?? '' } });
      try {
        expect(h.deps.queue.kind).toBe('bullmq');
        const p = await newProject(h.deps);
        const iid = randomUUID();
        expect((await init(h, p.token, { install_instance_id: iid })).statusCode).toBe(202);
        const userId = `bull-wait-${randomUUID().slice(0, 8)}`;
        await signUp(h, p, iid, userId);
        expect(await bullKeysHolding(h, iid)).not.toEqual([]);

        const res = await h.app.inject({ method: 'DELETE', url: `/api/v1/users/${userId}`, headers: p.headers });

        expect(res.statusCode).toBe(200);
        expect(res.json().data.install_instance_ids).toEqual([iid]);
        expect(await bullKeysHolding(h, iid)).toEqual([]);
      } finally {
        await closeHarness(h);
      }
    },
    60_000,
  );
});
