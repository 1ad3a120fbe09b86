// POST /api/client/attribution-data (spec: {deeplink, campaign_data, attribution_source}; organic is
// campaign_data null + ORGANIC; a final result is cached 24 h; 401 for a bad token). Apps poll it
// (real-clients §4.2): while the decision is pending the answer says so, carries Cache-Control
// no-store and is never cached, so the poll converges. campaign_data fields are strings and times
// carry no fractional seconds (iOS parses them with ISO8601DateFormatter).
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { attributeInstall } from '../../../src/domain/attribution/attribute-install.ts';
import { attributionCacheKey } from '../../../src/domain/identity/read-attribution.ts';
import { isoSeconds } from '../../../src/lib/time.ts';
import {
  attribute,
  attributedInstall,
  attributionData,
  campaignWithListings,
  clickLink,
  flushFacts,
  init,
  installRows,
  post,
  randomIp,
} from '../../support/client.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

const FOUND = 'Attribution data fetched successfully';
const PENDING = {
  msg: 'Attribution is still being processed. Poll again shortly.',
  status: 200,
  data: { deeplink: null, campaign_data: null, attribution_source: 'PENDING', processing: true },
};
const ORGANIC = {
  msg: FOUND,
  status: 200,
  data: { deeplink: null, campaign_data: null, attribution_source: 'ORGANIC' },
};
const UNAUTHORIZED = { msg: 'Invalid or missing project token.', status: 401 };
const NOT_FOUND = { msg: 'Install not found. Call init first.', status: 400 };

afterEach(() => {
  vi.restoreAllMocks();
});

async function pendingInstall(p: TestProject): Promise<string> {
  const iid = randomUUID();
  await init(h(), p.token, { install_instance_id: iid });
  return iid;
}

describe('200', () => {
  it('when the decision is pending, then the answer says so with no-store and is not cached', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = await pendingInstall(p);
    const set = vi.spyOn(deps.cache, 'set');

    const res = await attributionData(h(), p.token, iid);

    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json()).toEqual(PENDING);
    expect(set).not.toHaveBeenCalled();
  });

  it('when a pending install is then decided, then the next poll returns the decision (not a stale pending)', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = await pendingInstall(p);
    await attributionData(h(), p.token, iid);

    await attribute(h(), p, iid);
    const res = await attributionData(h(), p.token, iid);

    expect(res.json()).toEqual(ORGANIC);
    expect(res.headers['cache-control']).toBe('private, max-age=0');
  });

  it('when the install was attributed to a campaign, then campaign_data holds its strings and second-precision times', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const { campaign, iid } = await attributedInstall(h(), p);
    const [row] = await installRows(deps, p);

    const res = await attributionData(h(), p.token, iid);

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      msg: FOUND,
      status: 200,
      data: {
        deeplink: 'myapp://promo/spring',
        campaign_data: {
          id: campaign.displayId,
          name: 'Spring',
          type: 'INORGANIC',
          ad_network: 'META',
          group_name: 'Set 1',
          asset_group_name: null,
          asset_name: 'Creative 1',
          installed_at: isoSeconds(row?.created_at as Date),
          store_click_at: isoSeconds(row?.store_click_at as Date),
          ad_set_id: 'as1',
          ad_set_name: 'Set 1',
          ad_creative_id: 'cr1',
          ad_creative_name: 'Creative 1',
        },
        attribution_source: 'META',
      },
    });
    expect(res.json().data.campaign_data.installed_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('when the install is organic, then campaign_data is null and attribution_source ORGANIC', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = await pendingInstall(p);
    await attribute(h(), p, iid);

    const res = await attributionData(h(), p.token, iid);

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(ORGANIC);
  });

  it('when a final answer was read once, then it is cached for 24 h and served even after the row changes', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const { iid } = await attributedInstall(h(), p);
    const set = vi.spyOn(deps.cache, 'set');
    const first = await attributionData(h(), p.token, iid);

    await deps.sql`UPDATE installs SET campaign_id = NULL, network = NULL
      WHERE project_id = ${p.project.id} AND install_instance_id = ${iid}`;
    const second = await attributionData(h(), p.token, iid);

    expect(set).toHaveBeenCalledTimes(1);
    expect(set).toHaveBeenCalledWith(attributionCacheKey(p.project.id, iid), expect.any(String), 24 * 3600);
    expect(second.json()).toEqual(first.json());
    expect(second.json().data.campaign_data.type).toBe('INORGANIC');
  });

  it('when the install id arrives upper-cased, then it reads the same install', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = await pendingInstall(p);
    await attribute(h(), p, iid);

    const res = await attributionData(h(), p.token, iid.toUpperCase());

    expect(res.json()).toEqual(ORGANIC);
  });
});

describe('device_data.install_ref (spec: "include install_ref")', () => {
  /** A campaign click, then a pending install whose init carried no Play referrer (the click's is returned). */
  async function pendingWithoutReferrer() {
    const { deps } = h();
    const p = await newProject(deps);
    const campaign = await campaignWithListings(deps, p);
    const { referrer } = await clickLink(h(), campaign, { ip: randomIp() });
    await flushFacts(h());
    const iid = randomUUID();
    await init(h(), p.token, { install_instance_id: iid, device_data: {} }, randomIp());
    return { deps, p, campaign, referrer, iid };
  }
  const sendReferrer = (p: TestProject, iid: string, installRef: string) =>
    post(h(), 'attribution-data', {
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: iid,
      device_data: { install_ref: installRef },
    });

  it('when the init of a pending install had no Play referrer and attribution-data brings it, then the install is attributed by it', async () => {
    // Ignored here, the install was decided organic although its click was known.
    const { deps, p, campaign, referrer, iid } = await pendingWithoutReferrer();

    const poll = await sendReferrer(p, iid, referrer);

    expect(poll.json().data).toMatchObject({ attribution_source: 'PENDING', processing: true });
    expect((await installRows(deps, p))[0]?.install_ref).toBe(referrer);
    expect(await attribute(h(), p, iid)).toMatchObject({ method: 'play_referrer', campaignId: campaign.id });
    expect((await attributionData(h(), p.token, iid)).json().data.campaign_data?.id).toBe(campaign.displayId);
  });

  it('when the referrer arrives while the install is being decided, then the decision is made again with it', async () => {
    // The decision read the install before attribution-data stored the referrer; saved, it was organic
    // (the job attribution-data enqueued had the running job's id, so nothing decided again).
    const { deps, p, campaign, referrer, iid } = await pendingWithoutReferrer();
    let landed = 0;
    const ch = new Proxy(deps.ch, {
      get(target, prop, receiver) {
        if (prop !== 'query') {
          return Reflect.get(target, prop, receiver);
        }
        return async (params: Parameters<typeof target.query>[0]) => {
          if (landed++ === 0) {
            await sendReferrer(p, iid, referrer);
          }
          return target.query(params);
        };
      },
    });

    const decision = await attributeInstall({ ...deps, ch }, { projectId: p.project.id, installInstanceId: iid });

    expect(landed).toBeGreaterThan(0);
    expect(decision).toMatchObject({ method: 'play_referrer', campaignId: campaign.id });
    expect((await installRows(deps, p))[0]).toMatchObject({
      attribution_method: 'play_referrer',
      install_ref: referrer,
    });
  });

  it('when the install is decided or already has a referrer, then the one attribution-data brings changes nothing', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const { iid } = await attributedInstall(h(), p);
    const before = (await installRows(deps, p))[0]?.install_ref;

    await sendReferrer(p, iid, 'utm_source=other&lr_click_id=nope');

    expect((await installRows(deps, p))[0]?.install_ref).toBe(before);
  });
});

describe('400', () => {
  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['a number', 7],
  ])('when install_instance_id is %s, then 400 with its text', async (_case, iid) => {
    const { deps } = h();
    const p = await newProject(deps);

    const res = await post(h(), 'attribution-data', { token: p.token, platform: 'ANDROID', install_instance_id: iid });

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      msg: 'install_instance_id must be a non-empty string of at most 128 characters.',
      status: 400,
    });
  });

  it('when the install was never registered by init, then 400 Install not found. Call init first.', async () => {
    const { deps } = h();
    const p = await newProject(deps);

    const res = await attributionData(h(), p.token, randomUUID());

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(NOT_FOUND);
  });

  it('when the body is not JSON, then 400 Invalid JSON body. (parsing comes before the token check)', async () => {
    const res = await post(h(), 'attribution-data', '{"token":', { headers: { 'content-type': 'application/json' } });

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ msg: 'Invalid JSON body.', status: 400 });
  });
});

describe('401', () => {
  it.each([
    ['missing', undefined],
    ['unknown', 'pt_unknown'],
    ['carrying NUL', 'pt_\u0000'],
  ])('when the token is %s, then 401 (the only client route that answers 401)', async (_case, token) => {
    const res = await post(h(), 'attribution-data', { token, platform: 'ANDROID', install_instance_id: randomUUID() });

    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual(UNAUTHORIZED);
  });

  it('when the server key is sent as the token, then 401', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = await pendingInstall(p);

    const res = await attributionData(h(), p.serverKey, iid);

    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual(UNAUTHORIZED);
  });
});

describe('tenant isolation', () => {
  it("when project B asks for A's install after A's answer was cached, then B gets 400 and never A's data", async () => {
    const { deps } = h();
    const a = await newProject(deps);
    const b = await newProject(deps);
    const { iid } = await attributedInstall(h(), a);
    expect((await attributionData(h(), a.token, iid)).json().data.campaign_data).not.toBeNull();

    const res = await attributionData(h(), b.token, iid);

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(NOT_FOUND);
  });

  it('when both projects have an install with the same id, then each reads its own answer', async () => {
    const { deps } = h();
    const a = await newProject(deps);
    const b = await newProject(deps);
    const { iid } = await attributedInstall(h(), a);
    await init(h(), b.token, { install_instance_id: iid });
    await attributionData(h(), a.token, iid);

    const res = await attributionData(h(), b.token, iid);

    expect(res.json()).toEqual(PENDING);
  });
});
