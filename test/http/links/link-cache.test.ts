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
  it('when a click lands inside the create transaction, then right after the commit the service host opens the new campaign', async () => {
    const { deps } = h();
    const a = await newProject(deps);
    const android = await f.storeListing(deps, a, 'ANDROID');
    const id = `lc_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
    const inGap: number[] = [];

    await createCampaign(
      { sql: sqlWithHook(deps.sql, async () => inGap.push((await visit(`/${id}`)).statusCode)) },
      a.project,
      { name: 'A', customDisplayId: id, storeListingIds: [android.id] },
    );
    const after = await visit(`/${id}`);

    expect(inGap).toEqual([404]); // not committed yet: no campaign has the id
    expect(after.statusCode).toBe(302); // the miss was not kept
    expect(after.headers.location).toContain('play.google.com');
  });

  it('when another project asks for the display id of a link just opened (cached), then 400 and the link keeps opening its campaign', async () => {
    const { app, deps } = h();
    const a = await newProject(deps);
    const b = await newProject(deps);
    const android = await f.storeListing(deps, a, 'ANDROID');
    const id = `lc_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
    await f.campaign(app, a, { custom_display_id: id, store_listing_ids: [android.id] });
    expect((await visit(`/${id}`)).statusCode).toBe(302);

    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/create-campaign',
      headers: b.headers,
      payload: { name: 'B', custom_display_id: id },
    });
    const after = await visit(`/${id}`);

    expect(res.json()).toEqual({ msg: 'A campaign with this display ID already exists!', status: 400 });
    expect(after.statusCode).toBe(302);
  });
});
