// SKAN counters are read and written back under a row lock of the install
// (record-skan-activity.ts) inside capture-event's micro-batches (two lanes). Events of many iOS
// installs arriving at once, in crossing orders, must each be stored and counted once, with no 5xx.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { init, post, useClientHarness } from '../support/client.ts';
import { newProject } from '../support/harness.ts';

const h = useClientHarness();

describe('many iOS installs at once', () => {
  it('when 300 events of 10 iOS installs arrive at once, then all are answered 200 and counted once each', async () => {
    const p = await newProject(h().deps);
    const schema = {
      rules: [{ fine: 30, coarse: 'high', conditions: [{ type: 'event', name: 'tap', min_count: 30 }] }],
    };
    const put = await h().app.inject({
      method: 'PUT',
      url: '/api/v1/skan/schema',
      headers: p.headers,
      payload: schema,
    });
    expect(put.statusCode).toBe(201);
    const iids = Array.from({ length: 10 }, () => randomUUID());
    for (const iid of iids) {
      expect((await init(h(), p.token, { install_instance_id: iid, platform: 'IOS' })).statusCode).toBe(202);
      const t = await post(h(), 'trigger', {
        token: p.token,
        platform: 'IOS',
        install_instance_id: iid,
        user_data: { id: `u-${iid}` },
        data: { device_data: {} },
      });
      expect(t.statusCode).toBe(200);
    }
    // Crossing orders: even requests walk the installs forwards, odd ones backwards.
    const order = (k: number) => (k % 2 === 0 ? iids[(k >> 1) % 10] : iids[9 - ((k >> 1) % 10)]) as string;

    const all = await Promise.all(
      Array.from({ length: 300 }, (_, k) =>
        post(h(), 'capture-event', {
          token: p.token,
          platform: 'IOS',
          install_instance_id: order(k),
          event_name: 'tap',
          event_id: `e-${k}`,
        }),
      ),
    );

    expect(all.filter((r) => r.statusCode !== 200).map((r) => r.body)).toEqual([]);
    const rows = await h().deps.sql`SELECT count::int AS n FROM skan_activity
      WHERE project_id = ${p.project.id} AND kind = 'event'`;
    expect(rows.map((r) => r.n)).toEqual(Array(10).fill(30));
    const fine = await h().deps.sql`SELECT skan_fine FROM installs WHERE project_id = ${p.project.id}`;
    expect(fine.map((r) => r.skan_fine)).toEqual(Array(10).fill(30));
  });
});
