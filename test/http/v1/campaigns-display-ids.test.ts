// Display ids are held by one project at most, deleted campaigns included (create-campaign.ts,
// claimDisplayId): a custom id another project holds is refused with the duplicate text, and a
// generated id another project took meanwhile is drawn again. To make a generated id collide, the
// create's first claim is held back while another project takes that very id through the same
// domain call; the create then claims it, finds it taken, and draws another.
import { describe, expect, it } from 'vitest';
import type { Deps } from '../../../src/deps.ts';
import { createCampaign } from '../../../src/domain/campaigns/create-campaign.ts';
import { deleteCampaign } from '../../../src/domain/campaigns/delete-campaign.ts';
import * as f from '../../support/factories.ts';
import { newProject, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

type Begin = (fn: (tx: unknown) => Promise<unknown>) => Promise<unknown>;
type Tag = (strings: TemplateStringsArray, ...values: unknown[]) => Promise<unknown>;

/**
 * deps.sql whose first display id claim (the advisory lock query) waits for `before(displayId)`
 * to finish, so another create can take the id between the draw and the claim.
 */
function sqlDelayingFirstClaim(sql: Deps['sql'], before: (displayId: string) => Promise<void>): Deps['sql'] {
  let delayed = false;
  return new Proxy(sql, {
    get(target, key, receiver) {
      if (key !== 'begin') {
        return Reflect.get(target, key, receiver);
      }
      const begin: Begin = (fn) =>
        (target.begin as unknown as Begin)((tx) =>
          fn(
            new Proxy(tx as Tag, {
              apply(tag, self, args: Parameters<Tag>) {
                const [strings, ...values] = args;
                if (!delayed && strings.join('?').includes('pg_advisory_xact_lock')) {
                  delayed = true;
                  return before(String(values[1])).then(() => Reflect.apply(tag, self, args));
                }
                return Reflect.apply(tag, self, args);
              },
            }),
          ),
        );
      return begin;
    },
  });
}

describe('generated display ids', () => {
  it.each([
    ['a live campaign', false],
    ['a campaign it then deleted', true],
  ])('when another project takes the drawn id first (%s), then the create draws another id', async (_c, del) => {
    const { deps } = h();
    const a = await newProject(deps);
    const b = await newProject(deps);
    const taken: string[] = [];
    const takeIt = async (displayId: string) => {
      await createCampaign(deps, b.project, { name: 'B', customDisplayId: displayId });
      if (del) {
        await deleteCampaign(deps, b.project, displayId);
      }
      taken.push(displayId);
    };

    const made = await createCampaign({ sql: sqlDelayingFirstClaim(deps.sql, takeIt) }, a.project, { name: 'A' });

    expect(taken).toHaveLength(1);
    expect(made.displayId).not.toBe(taken[0]);
    expect(made.displayId).toMatch(/^[A-Za-z0-9]{8}$/);
    expect((await f.campaignRows(deps, a)).map((r) => r.display_id)).toEqual([made.displayId]);
    const holders = await deps.sql`SELECT project_id FROM campaigns WHERE display_id = ${taken[0] ?? ''}`;
    expect(holders.map((r) => r.project_id)).toEqual([b.project.id]);
  });
});

describe('custom display ids', () => {
  it("when another project's deleted campaign held the id, then 400 taken and nothing is created", async () => {
    const { deps } = h();
    const a = await newProject(deps);
    const b = await newProject(deps);
    const id = `cd_${a.project.id.slice(0, 8)}`;
    await createCampaign(deps, a.project, { name: 'A', customDisplayId: id });
    await deleteCampaign(deps, a.project, id);

    const res = await h().app.inject({
      method: 'POST',
      url: '/api/v1/create-campaign',
      headers: b.headers,
      payload: { name: 'B', custom_display_id: id },
    });

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ msg: 'A campaign with this display ID already exists!', status: 400 });
    expect(await f.campaignRows(deps, b)).toEqual([]);
  });
});
