// DELETE /api/v1/users/{user_id} on a shared device: user A signed up on an attributed install,
// then user B logged in on the same install (trigger ties the install to B). Deleting B must not
// take A's registration (A's registering install) with it: the install stays and goes back to A.
// It was deleted, so A left attributed-users, A's later payments counted as organic, and a refund
// of A's earlier payment did not net out on A's campaign.
import { describe, expect, it } from 'vitest';
import { attributedInstall, attributionData, flushFacts, type Res } from '../../support/client.ts';
import { signUp } from '../../support/commerce.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

function del(userId: string, p: TestProject): Promise<Res> {
  return h().app.inject({
    method: 'DELETE',
    url: `/api/v1/users/${encodeURIComponent(userId)}`,
    headers: p.headers,
  }) as Promise<Res>;
}

function listed(p: TestProject, displayId: string): Promise<Res> {
  return h().app.inject({
    method: 'GET',
    url: `/api/v1/attributed-users?display_id=${displayId}`,
    headers: p.headers,
  }) as Promise<Res>;
}

describe('shared device', () => {
  it('when B (who logged in on A’s install) is deleted, then A is still listed under the campaign that brought A', async () => {
    const p = await newProject(h().deps);
    const { campaign, iid } = await attributedInstall(h(), p);
    await signUp(h(), p, iid, 'user-a');
    await signUp(h(), p, iid, 'user-b');
    const before = await listed(p, campaign.displayId);
    expect(
      before
        .json()
        .data.users.map((u: { user_data: { id: string } }) => u.user_data.id)
        .sort(),
    ).toEqual(['user-a', 'user-b']);

    expect((await del('user-b', p)).statusCode).toBe(200);

    const after = await listed(p, campaign.displayId);
    expect(after.statusCode).toBe(200);
    expect(after.json().data.users.map((u: { user_data: { id: string } }) => u.user_data.id)).toEqual(['user-a']);
  });

  it('when B is deleted, then a later server-side payment of A still counts for A’s campaign', async () => {
    const p = await newProject(h().deps);
    const { campaign, iid } = await attributedInstall(h(), p);
    await signUp(h(), p, iid, 'user-a');
    await signUp(h(), p, iid, 'user-b');
    expect((await del('user-b', p)).statusCode).toBe(200);

    const pay = await h().app.inject({
      method: 'POST',
      url: '/api/v1/capture-payment',
      headers: p.headers,
      payload: { user_id: 'user-a', amount: 5, payment_id: 'a-1' },
    });
    expect(pay.statusCode).toBe(201);
    await flushFacts(h());
    const rs = await h().deps.ch.query({
      query: 'SELECT campaign_id FROM payments WHERE project_id = {p:String}',
      format: 'JSONEachRow',
      query_params: { p: p.project.id },
    });
    expect(await rs.json()).toEqual([{ campaign_id: campaign.id }]);
  });

  it('when A (who registered on the install B now uses) is deleted, then B’s install and attribution stay', async () => {
    const p = await newProject(h().deps);
    const { iid } = await attributedInstall(h(), p);
    await signUp(h(), p, iid, 'user-a');
    await signUp(h(), p, iid, 'user-b');
    expect((await del('user-a', p)).statusCode).toBe(200);
    const res = await attributionData(h(), p.token, iid);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.attribution_source).not.toBe('ORGANIC');
  });

  it('when B is deleted and A’s earlier payment is then refunded, then A’s campaign nets to zero', async () => {
    const p = await newProject(h().deps);
    const { campaign, iid } = await attributedInstall(h(), p);
    await signUp(h(), p, iid, 'user-a');
    const pay = await h().app.inject({
      method: 'POST',
      url: '/api/v1/capture-payment',
      headers: p.headers,
      payload: { user_id: 'user-a', amount: 7, payment_id: 'a-7' },
    });
    expect(pay.statusCode).toBe(201);
    await flushFacts(h());
    await signUp(h(), p, iid, 'user-b');
    expect((await del('user-b', p)).statusCode).toBe(200);

    const refund = await h().app.inject({
      method: 'POST',
      url: '/api/v1/remove-payment',
      headers: p.headers,
      payload: { payment_id: 'a-7' },
    });
    expect(refund.statusCode).toBe(200);
    await flushFacts(h());
    const rs = await h().deps.ch.query({
      query: `SELECT campaign_id, platform, toString(sum(amount * sign)) AS net FROM payments
        WHERE project_id = {p:String} GROUP BY campaign_id, platform ORDER BY campaign_id`,
      format: 'JSONEachRow',
      query_params: { p: p.project.id },
    });
    expect(await rs.json()).toEqual([{ campaign_id: campaign.id, platform: 'ANDROID', net: '0' }]);
  });
});
