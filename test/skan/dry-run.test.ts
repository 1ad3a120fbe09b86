// skan dry-run: a candidate schema over a sample of recent iOS installs' recorded activity, window by
// window, merged as live evaluation merges (the fine value never lowered). Android installs are not
// sampled, and the installs' stored values are left as they were.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { dryRunSkanSchema } from '../../src/domain/skan/dry-run-schema.ts';
import { skanSchemaSchema } from '../../src/domain/skan/schema.ts';
import { init, post, useClientHarness } from '../support/client.ts';
import { newProject } from '../support/harness.ts';

const h = useClientHarness();

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
          { fine: 12, coarse: 'medium', lock: false, window: 0 },
          { fine: 12, coarse: 'high', lock: true, window: 1 },
        ],
      },
    ]);
  });
});
