// skan dry-run: a candidate schema over a sample of recent iOS installs' recorded activity, window by
// window, merged as live evaluation merges (the fine value never lowered). Android installs are not
// sampled, and the installs' stored values are left as they were. The counters keep window totals,
// not the order of activity: for the current schema the values live evaluation stored are shown
// (`live`), elsewhere the totals evaluated at once (`totals`), which a lock matched early or an
// amount range left by later activity can make differ.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { dryRunSkanSchema } from '../../src/domain/skan/dry-run-schema.ts';
import { skanSchemaSchema } from '../../src/domain/skan/schema.ts';
import { init, post, type Res, useClientHarness } from '../support/client.ts';
import { newProject, type TestProject } from '../support/harness.ts';

const h = useClientHarness();

/** An iOS install signed up under `schema`, the project's current one. */
async function iosInstallUnder(schema: unknown) {
  const p = await newProject(h().deps);
  const put = await h().app.inject({
    method: 'PUT',
    url: '/api/v1/skan/schema',
    headers: p.headers,
    payload: schema as object,
  });
  expect(put.statusCode).toBe(201);
  const iid = randomUUID();
  const base = { token: p.token, platform: 'IOS', install_instance_id: iid };
  await init(h(), p.token, { install_instance_id: iid, platform: 'IOS' });
  await post(h(), 'trigger', { ...base, user_data: { id: `u-${iid}` } });
  return {
    p,
    iid,
    event: (name: string, amount: number): Promise<Res> =>
      post(h(), 'capture-event', { ...base, event_name: name, event_data: { amount } }),
    pay: (amount: number): Promise<Res> =>
      post(h(), 'capture-payment', { ...base, amount, payment_id: randomUUID(), type: 'ONE_TIME' }),
  };
}

async function liveSince(p: TestProject) {
  const [r] = await h().deps.sql`SELECT max(created_at) AS at FROM skan_schemas WHERE project_id = ${p.project.id}`;
  return { schemaCreatedAt: r?.at as Date };
}

describe('dryRunSkanSchema', () => {
  it('when iOS installs have activity in windows 0 and 1, then each window shows the values the schema gives', async () => {
    const p = await newProject(h().deps);
    const ios = randomUUID();
    const android = randomUUID();
    for (const [iid, platform] of [
      [ios, 'IOS'],
      [android, 'ANDROID'],
    ] as const) {
      await init(h(), p.token, { install_instance_id: iid, platform });
      await post(h(), 'trigger', { token: p.token, platform, install_instance_id: iid, user_data: { id: `u-${iid}` } });
    }
    await h().deps.sql`UPDATE installs SET created_at = now() - interval '5 days'
      WHERE project_id = ${p.project.id} AND install_instance_id = ${ios}`;
    await post(h(), 'capture-event', {
      token: p.token,
      platform: 'IOS',
      install_instance_id: ios,
      event_name: 'level_up',
    });
    const schema = skanSchemaSchema.parse({
      rules: [
        { fine: 12, coarse: 'medium', conditions: [{ type: 'signup' }] },
        { fine: 3, coarse: 'high', lock: true, windows: [1], conditions: [{ type: 'event', name: 'level_up' }] },
      ],
    });

    const rows = await dryRunSkanSchema(h().deps, p.project.id, schema, 100);

    expect(rows).toEqual([
      {
        installInstanceId: ios,
        currentFine: null,
        windows: [
          { fine: 12, coarse: 'medium', lock: false, window: 0, from: 'totals' },
          { fine: 12, coarse: 'high', lock: true, window: 1, from: 'totals' },
        ],
      },
    ]);
  });

  it('when a lock rule matched before revenue, then the current schema shows the locked live values, a file the totals', async () => {
    const raw = {
      rules: [
        { fine: 5, coarse: 'low', lock: true, conditions: [{ type: 'signup' }] },
        { fine: 40, coarse: 'high', conditions: [{ type: 'revenue', amount: { min: 1 } }] },
      ],
    };
    const i = await iosInstallUnder(raw);
    expect((await i.pay(50)).json().data).toMatchObject({ fine_conversion_value: 5, lock_postback: true });
    const schema = skanSchemaSchema.parse(raw);

    const current = await dryRunSkanSchema(h().deps, i.p.project.id, schema, 10, await liveSince(i.p));
    const file = await dryRunSkanSchema(h().deps, i.p.project.id, schema, 10);

    expect(current).toEqual([
      {
        installInstanceId: i.iid,
        currentFine: 5,
        windows: [{ fine: 5, coarse: 'low', lock: true, window: 0, from: 'live' }],
      },
    ]);
    expect(file).toEqual([
      {
        installInstanceId: i.iid,
        currentFine: 5,
        windows: [{ fine: 40, coarse: 'high', lock: true, window: 0, from: 'totals' }],
      },
    ]);
  });

  it('when later events left an amount range, then the current schema shows the value live kept', async () => {
    const raw = {
      rules: [
        { fine: 50, coarse: 'medium', conditions: [{ type: 'event', name: 'cart', amount: { min: 10, max: 50 } }] },
      ],
    };
    const i = await iosInstallUnder(raw);
    await i.event('cart', 30);
    expect((await i.event('cart', 30)).json().data).toMatchObject({ fine_conversion_value: 50 });

    const rows = await dryRunSkanSchema(
      h().deps,
      i.p.project.id,
      skanSchemaSchema.parse(raw),
      10,
      await liveSince(i.p),
    );

    expect(rows[0]?.windows).toEqual([{ fine: 50, coarse: 'medium', lock: false, window: 0, from: 'live' }]);
  });

  it('when the live values were stored under an earlier schema, then the current one is evaluated on the totals', async () => {
    const i = await iosInstallUnder({ rules: [{ fine: 9, coarse: 'high', conditions: [{ type: 'signup' }] }] });
    const next = { rules: [{ fine: 2, coarse: 'low', conditions: [{ type: 'signup' }] }] };
    await h().app.inject({ method: 'PUT', url: '/api/v1/skan/schema', headers: i.p.headers, payload: next });

    const rows = await dryRunSkanSchema(
      h().deps,
      i.p.project.id,
      skanSchemaSchema.parse(next),
      10,
      await liveSince(i.p),
    );

    expect(rows[0]?.windows).toEqual([{ fine: 2, coarse: 'low', lock: false, window: 0, from: 'totals' }]);
  });
});
