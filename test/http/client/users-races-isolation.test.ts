// Users under concurrency and across projects: first triggers of one user racing on five installs,
// trigger racing the decision and the fact writer, two-project isolation of user ids, a user id
// re-used after deletion, integrations merging per install.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  attribute,
  attributedInstall,
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
import { appUsers, installUser, organicInstall, signupFacts, trigger } from '../../support/users.ts';

const h = useClientHarness();

function listUsers(p: TestProject, displayId: string) {
  return h().app.inject({ method: 'GET', url: `/api/v1/attributed-users?display_id=${displayId}`, headers: p.headers });
}

describe('one new user, five installs, five first triggers at once', () => {
  it('when they race, then one registers, one sign-up is written, and it names the registering install', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iids: string[] = [];
    for (let i = 0; i < 5; i++) {
      iids.push(await organicInstall(h(), p));
    }

    const answers = await Promise.all(iids.map((iid) => trigger(h(), p.token, iid, 'u-five')));

    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
    const winners = answers.flatMap((r, i) => (r.json().data.trigger === true ? [iids[i]] : []));
    expect(winners).toHaveLength(1);
    const users = await appUsers(deps, p);
    expect(users.map((u) => [u.user_id, u.install_instance_id])).toEqual([['u-five', winners[0]]]);
    await flushFacts(h());
    expect((await signupFacts(deps, p)).map((f) => f.install_instance_id)).toEqual(winners);
    for (const iid of iids) {
      expect((await installUser(deps, p, iid))?.user_id).toBe('u-five');
    }
  });
});

describe('trigger racing the attribution decision and the fact writer', () => {
  it('when trigger, the decision and a writer flush run at once, then the sign-up still carries the campaign', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const campaign = await campaignWithListings(deps, p);
    for (let round = 0; round < 3; round++) {
      const ip = randomIp();
      const { referrer } = await clickLink(h(), campaign, { ip, query: META_CLICK_QUERY });
      await flushFacts(h());
      const iid = randomUUID();
      await init(h(), p.token, { install_instance_id: iid, device_data: { install_ref: referrer } }, ip);
      await Promise.all([trigger(h(), p.token, iid, `u-race-${round}`), attribute(h(), p, iid), flushFacts(h())]);
      await flushFacts(h());
    }
    // A row the writer gave back just as the decision woke its install's rows rests up to 30 s
    // (wakeRestingRows skips rows being given back): end the rests rather than wait them out.
    await deps.sql`UPDATE fact_outbox SET not_before = NULL WHERE project_id = ${p.project.id}`;
    await flushFacts(h());
    const facts = await signupFacts(deps, p);
    expect(facts.map((f) => [f.user_id, f.campaign_id]).sort()).toEqual([
      ['u-race-0', campaign.id],
      ['u-race-1', campaign.id],
      ['u-race-2', campaign.id],
    ]);
  });
});

describe('two projects, one user id', () => {
  it("when project B's app registers a user id project A already has, then B counts its own sign-up and marks nothing", async () => {
    const { deps } = h();
    const a = await newProject(deps);
    const b = await newProject(deps);
    const { campaign, iid: aInstall } = await attributedInstall(h(), a);
    expect(
      (await trigger(h(), a.token, aInstall, 'shared-id', { user_data: { id: 'shared-id', name: 'A' } })).json().data
        .trigger,
    ).toBe(true);
    // Same install id in both projects too (an SDK-less client reusing one id).
    const bInstall = await organicInstall(h(), b, { iid: aInstall });

    const res = await trigger(h(), b.token, bInstall, 'shared-id', { user_data: { id: 'shared-id', name: 'B' } });

    expect(res.json().data).toEqual({ deeplink: null, trigger: true });
    expect(await installUser(deps, b, bInstall)).toEqual({ user_id: 'shared-id', is_reinstall: false });
    expect((await appUsers(deps, a)).map((u) => u.name)).toEqual(['A']);
    expect((await appUsers(deps, b)).map((u) => u.name)).toEqual(['B']);
    const listed = (await listUsers(a, campaign.displayId)).json().data;
    expect(listed.users.map((u: { user_data: { name: string } }) => u.user_data.name)).toEqual(['A']);
    // B's key cannot read A's campaign.
    expect((await listUsers(b, campaign.displayId)).statusCode).toBe(404);
    const set = await post(h(), 'set-user-data', {
      token: b.token,
      install_instance_id: bInstall,
      user_data: { id: 'shared-id', email: 'b@example.com' },
    });
    expect(set.json().data.updated).toBe(true);
    expect((await appUsers(deps, a)).map((u) => u.email)).toEqual([null]);
  });
});

describe('a user id re-used after its deletion', () => {
  it('when the deleted id signs up again on a new install, then it registers anew and counts one sign-up', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const { campaign, iid } = await attributedInstall(h(), p);
    expect((await trigger(h(), p.token, iid, 'gone')).json().data.trigger).toBe(true);
    await flushFacts(h());
    const del = await h().app.inject({ method: 'DELETE', url: '/api/v1/users/gone', headers: p.headers });
    expect(del.statusCode).toBe(200);
    const fresh = await organicInstall(h(), p);

    const res = await trigger(h(), p.token, fresh, 'gone');
    await flushFacts(h());

    expect(res.json().data.trigger).toBe(true);
    expect(await installUser(deps, p, fresh)).toEqual({ user_id: 'gone', is_reinstall: false });
    expect((await signupFacts(deps, p)).map((f) => [f.user_id, f.install_instance_id])).toEqual([['gone', fresh]]);
    expect((await listUsers(p, campaign.displayId)).json().data.total_users).toBe(0);
  });
});

describe('integrations', () => {
  it('when clevertap_id comes twice and another key once, then they merge per install and project', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const q = await newProject(deps);
    const iid = await organicInstall(h(), p);
    const other = await organicInstall(h(), p);
    const send = (token: string, install: string, info: Record<string, string>) =>
      post(h(), 'integrations', { token, platform: 'IOS', install_instance_id: install, integration_info: info });

    expect((await send(p.token, iid, { clevertap_id: 'ct-1' })).json().status).toBe(200);
    await send(p.token, iid, { other_id: 'o-1' });
    await send(p.token, iid, { clevertap_id: 'ct-2' });
    await send(p.token, other, { clevertap_id: 'ct-other' });
    const cross = await send(q.token, iid, { clevertap_id: 'ct-q' });

    expect(cross.statusCode).toBe(400);
    const rows = await deps.sql<{ install_instance_id: string; integration_info: Record<string, string> }[]>`
      SELECT install_instance_id, integration_info FROM installs WHERE project_id = ${p.project.id}`;
    const byId = Object.fromEntries(rows.map((r) => [r.install_instance_id, r.integration_info]));
    expect(byId[iid]).toEqual({ clevertap_id: 'ct-2', other_id: 'o-1' });
    expect(byId[other]).toEqual({ clevertap_id: 'ct-other' });
  });
});
