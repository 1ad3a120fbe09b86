// Scaled out: two worker processes on the same BullMQ queues, fact writers and cron (README
// "Roles and scaling out": "run any number of ROLE=worker processes"; Architecture: "a fact is never
// lost and never written twice"; attribution "decides once per install"). Two independent
// instances over one Postgres and one Redis db, each running startWorkers; clicks and inits are
// spread over both, then every install must have one decision, one install fact, one sign-up.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  ANDROID_UA,
  attributionData,
  campaignWithListings,
  clickLink,
  init,
  post,
  randomIp,
} from '../support/client.ts';
import { chCounts, until } from '../support/fact-counts.ts';
import { type Harness, newProject } from '../support/harness.ts';
import { hasRedis, useTwoInstances } from './instances.ts';

let a: Harness;
let b: Harness;
useTwoInstances(
  { RATE_LIMITS_ENABLED: 'false' },
  (x, y) => {
    a = x;
    b = y;
  },
  { workers: true },
);

describe.skipIf(!hasRedis)('two workers on the same queues', () => {
  it('when installs are initialised and signed up across two instances with two workers, then each has one decision, one install fact and one sign-up fact', async () => {
    const p = await newProject(a.deps);
    const campaign = await campaignWithListings(a.deps, p);
    const n = 24;
    const iids = Array.from({ length: n }, () => randomUUID());
    // clickLink shifts deps.now for its request, so clicks go one at a time before the races.
    const clicks: { ip: string; referrer: string }[] = [];
    for (let i = 0; i < n; i++) {
      const ip = randomIp();
      const { referrer } = await clickLink(i % 2 === 0 ? a : b, campaign, { ip, userAgent: ANDROID_UA });
      clicks.push({ ip, referrer });
    }
    await Promise.all(
      iids.map(async (iid, i) => {
        const [x, y] = i % 2 === 0 ? [a, b] : [b, a];
        const { ip, referrer } = clicks[i] as { ip: string; referrer: string };
        const body = {
          install_instance_id: iid,
          device_data: { install_ref: referrer, system_version: '14', device_name: 'samsung SM-S911B' },
        };
        const [r1, r2] = await Promise.all([init(x, p.token, body, ip), init(y, p.token, body, ip)]);
        expect([r1.statusCode, r2.statusCode]).toEqual([202, 202]);
        const trig = {
          token: p.token,
          platform: 'ANDROID',
          install_instance_id: iid,
          user_data: { id: `u-${i}` },
          data: { device_data: {} },
        };
        await Promise.all([post(x, 'trigger', trig), post(y, 'trigger', trig)]);
      }),
    );
    await until(
      'every install is decided',
      async () => {
        const [row] = await a.deps.sql<{ n: number }[]>`
          SELECT count(*)::int AS n FROM installs WHERE project_id = ${p.project.id} AND attribution_status = 'decided'`;
        return row?.n === n;
      },
      30_000,
    );
    await until(
      'the outbox of the project is empty',
      async () => {
        const [row] = await a.deps.sql<{ n: number }[]>`
          SELECT count(*)::int AS n FROM fact_outbox WHERE project_id = ${p.project.id}`;
        return row?.n === 0;
      },
      30_000,
    );

    const answers = await Promise.all(iids.map((iid, i) => attributionData(i % 2 ? a : b, p.token, iid)));
    for (const r of answers) {
      expect(r.json().data.campaign_data?.id).toBe(campaign.displayId);
    }
    expect(await chCounts(a.deps, 'attributions', p.project.id)).toEqual({ rows: n, unique: n });
    expect(await chCounts(a.deps, 'signups', p.project.id)).toEqual({ rows: n, unique: n });
    const rs = await a.deps.ch.query({
      query: `SELECT kind, toUInt32(count()) AS n FROM install_events WHERE project_id = {p:String} GROUP BY kind ORDER BY kind`,
      format: 'JSONEachRow',
      query_params: { p: p.project.id },
    });
    expect(await rs.json()).toEqual([
      { kind: 'app_open', n },
      { kind: 'install', n },
    ]);
    expect(await chCounts(a.deps, 'clicks', p.project.id)).toEqual({ rows: n, unique: n });
  }, 90_000);
});
