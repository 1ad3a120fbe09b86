// How a user id marks installs reinstalls (README "Attribution": "an install whose device ids were
// seen before … or whose user id was seen before, is a `reinstall`", within the reattribution
// window as device ids are; "Users": only an install's first tie to the user decides). Also a login
// before the decision (the decision records the reinstall) and two first triggers racing.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { setAttributionSettings } from '../../../src/domain/projects/set-attribution-settings.ts';
import { asSql } from '../../../src/store/postgres/pool.ts';
import { tieInstallToUser, upsertAppUser } from '../../../src/store/postgres/users.ts';
import {
  attribute,
  attributionFacts,
  campaignWithListings,
  clickLink,
  flushFacts,
  init,
  META_CLICK_QUERY,
  post,
  randomIp,
  useClientHarness,
} from '../../support/client.ts';
import { newProject, type TestProject } from '../../support/harness.ts';
import { appUsers, installUser, organicInstall, trigger } from '../../support/users.ts';

const h = useClientHarness();

function lookup(p: TestProject, userId: string) {
  return h().app.inject({
    method: 'GET',
    url: `/api/v1/get-attribution-result?user_id=${encodeURIComponent(userId)}`,
    headers: p.headers,
  });
}

describe('a user id seen before, and the decision', () => {
  // Was: the decision took `kind` from device ids only, so the fact said install while Postgres (and
  // get-attribution-result) said reinstall, and reports counted a new install of the campaign.
  it('when the user logs in on a new install before its attribution is decided, then the decision records a reinstall', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const first = await organicInstall(h(), p);
    expect((await trigger(h(), p.token, first, 'u-seen')).statusCode).toBe(200);
    // The new install came from a campaign click; the user logs in before the job runs.
    const campaign = await campaignWithListings(deps, p);
    const ip = randomIp();
    const { referrer } = await clickLink(h(), campaign, { ip, query: META_CLICK_QUERY });
    await flushFacts(h());
    const second = randomUUID();
    await init(h(), p.token, { install_instance_id: second, device_data: { install_ref: referrer } }, ip);
    expect((await trigger(h(), p.token, second, 'u-seen')).json().data.trigger).toBe(false);

    await attribute(h(), p, second);
    await flushFacts(h());

    expect(await installUser(deps, p, second)).toEqual({ user_id: 'u-seen', is_reinstall: true });
    const fact = (await attributionFacts(deps, p)).find((f) => f.install_instance_id === second);
    expect(fact).toMatchObject({ campaign_id: campaign.id, method: 'play_referrer' });
    // Postgres (and get-attribution-result) say reinstall; the fact reports must agree.
    expect(fact?.kind).toBe('reinstall');
  });
});

describe('the registering install', () => {
  // Was: a plain repeat trigger on B (a re-login) compared B with the older A tied since and turned
  // B, the install that registered the user, into a reinstall.
  it('when the user signed up on B, logged in on an older install A, and triggers again on B, then B stays a first install', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const olderA = await organicInstall(h(), p);
    const newerB = await organicInstall(h(), p);
    expect((await trigger(h(), p.token, newerB, 'u-b')).json().data.trigger).toBe(true);
    expect((await trigger(h(), p.token, olderA, 'u-b')).json().data.trigger).toBe(false);
    const afterSignup = await installUser(deps, p, newerB);

    const again = await trigger(h(), p.token, newerB, 'u-b');

    expect(again.json().data.trigger).toBe(false);
    expect(afterSignup).toEqual({ user_id: 'u-b', is_reinstall: false });
    expect(await installUser(deps, p, olderA)).toEqual({ user_id: 'u-b', is_reinstall: false });
    expect(await installUser(deps, p, newerB)).toEqual({ user_id: 'u-b', is_reinstall: false });
    expect((await lookup(p, 'u-b')).json().data.match.reinstall).toBe(false);
  });

  it('when the user signed up on B and then logs in on an older install A, then neither is a reinstall', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const olderA = await organicInstall(h(), p);
    const newerB = await organicInstall(h(), p);
    await trigger(h(), p.token, newerB, 'u-c');
    await trigger(h(), p.token, olderA, 'u-c');
    expect(await installUser(deps, p, olderA)).toEqual({ user_id: 'u-c', is_reinstall: false });
    expect(await installUser(deps, p, newerB)).toEqual({ user_id: 'u-c', is_reinstall: false });
  });
});

describe('first triggers of one user on two installs at once', () => {
  // Was: the newer install's tie read a snapshot without the older one's uncommitted tie and user
  // row, then its user upsert waited and resolved as a login with the mark already false.
  it('when the older install registers the user while the newer one logs in, then the newer one is a reinstall', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const older = await organicInstall(h(), p);
    const newer = await organicInstall(h(), p);
    let release: () => void = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    let tiedOlder: () => void = () => {};
    const olderTied = new Promise<void>((r) => {
      tiedOlder = r;
    });
    // The older install's trigger transaction, paused after its tie and insert, as a slow commit.
    const olderTx = deps.sql.begin(async (txh) => {
      const tx = asSql(txh);
      await tieInstallToUser(tx, p.project.id, older, 'u-race', 90 * 86_400_000, false);
      await upsertAppUser(tx, {
        projectId: p.project.id,
        userId: 'u-race',
        name: null,
        email: null,
        phone: null,
        extras: {},
        deviceData: {},
        installInstanceId: older,
        isFirstTimeUser: null,
        userCreatedAt: null,
        attributedAt: new Date(),
      });
      tiedOlder();
      await held;
    });
    await olderTied;
    const newerTrigger = trigger(h(), p.token, newer, 'u-race');
    await new Promise((r) => setTimeout(r, 300));
    release();
    await olderTx;
    const res = await newerTrigger;

    expect(res.json().data.trigger).toBe(false);
    expect(await installUser(deps, p, older)).toEqual({ user_id: 'u-race', is_reinstall: false });
    expect(await installUser(deps, p, newer)).toEqual({ user_id: 'u-race', is_reinstall: true });
  });
});

describe('the reattribution window on user ids', () => {
  async function loginAfter(days: number, windowDays: number, how: 'trigger' | 'customer-user-id') {
    const { deps } = h();
    const p = await newProject(deps);
    await setAttributionSettings(deps, p.project.id, { reattribution_window_days: windowDays });
    const first = await organicInstall(h(), p);
    const userId = `u-${randomUUID()}`;
    expect((await trigger(h(), p.token, first, userId)).json().data.trigger).toBe(true);
    await deps.sql`UPDATE installs SET created_at = now() - ${days} * interval '1 day'
      WHERE project_id = ${p.project.id} AND install_instance_id = ${first}`;
    const next = await organicInstall(h(), p);
    const res =
      how === 'trigger'
        ? await trigger(h(), p.token, next, userId)
        : await post(h(), 'customer-user-id', { token: p.token, install_instance_id: next, user_id: userId });
    expect(res.statusCode).toBe(200);
    return (await installUser(deps, p, next))?.is_reinstall;
  }

  it.each(['trigger', 'customer-user-id'] as const)(
    "when the user's earlier install is older than the window, then a login by %s on a new install is no reinstall",
    async (how) => {
      // Was: a user id seen once made every later install a reinstall, however old the first.
      expect(await loginAfter(3, 1, how)).toBe(false);
    },
  );

  it.each(['trigger', 'customer-user-id'] as const)(
    "when the user's earlier install is within the window, then a login by %s on a new install is a reinstall",
    async (how) => {
      expect(await loginAfter(20, 30, how)).toBe(true);
    },
  );
});

describe('a re-login after switching accounts on the registering install', () => {
  // Was: B's current user was V, so the tie back to U compared B with the older A again and marked
  // B, U's registering install, a reinstall.
  it('when U signed up on B, logged in on older A, and B switches to V and back to U, then B stays a first install', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const olderA = await organicInstall(h(), p);
    const newerB = await organicInstall(h(), p);
    expect((await trigger(h(), p.token, newerB, 'u-switch')).json().data.trigger).toBe(true);
    expect((await trigger(h(), p.token, olderA, 'u-switch')).json().data.trigger).toBe(false);
    expect((await trigger(h(), p.token, newerB, 'v-other')).json().data.trigger).toBe(true);

    expect((await trigger(h(), p.token, newerB, 'u-switch')).json().data.trigger).toBe(false);

    // U is still registered on B (its registering install).
    expect((await appUsers(deps, p)).find((u) => u.user_id === 'u-switch')?.install_instance_id).toBe(newerB);
    expect(await installUser(deps, p, newerB)).toEqual({ user_id: 'u-switch', is_reinstall: false });
  });

  // Same rule through customer-user-id (README: "with the same reinstall rule").
  it('when the switch back goes through customer-user-id, then B stays a first install', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const olderA = await organicInstall(h(), p);
    const newerB = await organicInstall(h(), p);
    await trigger(h(), p.token, newerB, 'u-cuid');
    await trigger(h(), p.token, olderA, 'u-cuid');
    await trigger(h(), p.token, newerB, 'v-cuid');

    const res = await post(h(), 'customer-user-id', {
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: newerB,
      user_id: 'u-cuid',
    });

    expect(res.statusCode).toBe(200);
    expect(await installUser(deps, p, newerB)).toEqual({ user_id: 'u-cuid', is_reinstall: false });
    expect((await lookup(p, 'u-cuid')).json().data.match.reinstall).toBe(false);
  });

  it('when B alone switches U → V → U, then B is no reinstall', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const b = await organicInstall(h(), p);
    await trigger(h(), p.token, b, 'u-alone');
    await trigger(h(), p.token, b, 'v-alone');
    await trigger(h(), p.token, b, 'u-alone');
    expect(await installUser(deps, p, b)).toEqual({ user_id: 'u-alone', is_reinstall: false });
  });
});
