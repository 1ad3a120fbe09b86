// The link cache after campaign writes (README "Link cache": a write in this process drops it at
// once). A create clears it after its transaction commits: a click landing inside the transaction
// reads the old state, and that must not outlive the commit. Rate limits are off.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Deps } from '../../../src/deps.ts';
import { createCampaign } from '../../../src/domain/campaigns/create-campaign.ts';
import * as f from '../../support/factories.ts';
import { newProject, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

const ANDROID =
  'Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36';
const SERVICE_HOST = 'attr.test'; // the harness's PUBLIC_URL host

const visit = (url: string) =>
  h().app.inject({ method: 'GET', url, headers: { host: SERVICE_HOST, 'user-agent': ANDROID } });

type Begin = (fn: (tx: unknown) => Promise<unknown>) => Promise<unknown>;

/** deps.sql whose transactions run `beforeCommit` after their work and before COMMIT. */
function sqlWithHook(sql: Deps['sql'], beforeCommit: () => Promise<unknown>): Deps['sql'] {
  return new Proxy(sql, {
    get(target, key, receiver) {
      if (key !== 'begin') {
        return Reflect.get(target, key, receiver);
      }
      const begin: Begin = (fn) =>
        (target.begin as unknown as Begin)(async (tx) => {
          const out = await fn(tx);
          await beforeCommit();
          return out;
        });
      return begin;
    },
  });
}

describe('link cache after POST /api/v1/create-campaign', () => {
  it('when a click lands inside the create transaction, then right after the commit the service host sees the new state', async () => {
    const { app, deps } = h();
    const a = await newProject(deps);
    const b = await newProject(deps);
    const android = await f.storeListing(deps, a, 'ANDROID');
    const id = `lc_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
    await f.campaign(app, a, { custom_display_id: id, store_listing_ids: [android.id] });
    const inGap: number[] = [];

    await createCampaign(
      { sql: sqlWithHook(deps.sql, async () => inGap.push((await visit(`/${id}`)).statusCode)) },
      b.project,
      {
        name: 'B',
        customDisplayId: id,
      },
    );
    const after = await visit(`/${id}`);

    expect(inGap).toEqual([302]); // B not committed yet: only A's campaign has the id
    expect(after.statusCode).toBe(404); // now shared by two projects: ambiguous on the service host
    expect(after.headers['content-type']).toBe('text/html; charset=utf-8');
  });
});
