// What attributed-users answers for a user who signed up on one install and logged in on another
// (README "Users": attributed-users lists users by their registering install, with that install's
// device: a login from another device refreshes the user's details but not device_data).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { attribute, attributedInstall, post, randomIp, useClientHarness } from '../../support/client.ts';
import { newProject, type TestProject } from '../../support/harness.ts';
import { trigger } from '../../support/users.ts';

const h = useClientHarness();

const ANDROID_DEVICE = {
  brand: 'samsung',
  manufacturer: 'samsung',
  device_name: 'samsung SM-S911B',
  device_id: '9774D56D682E549C',
  version: '2.0',
  build_number: '20',
  api_level: 34,
};
const IPHONE_DEVICE = {
  brand: 'Apple',
  manufacturer: 'Apple',
  device_name: 'iPhone15,2',
  device_id: 'B7D3A1C2-0000-4000-8000-000000000001',
  version: '2.1',
  build_number: '21',
};

function listUsers(p: TestProject, displayId: string) {
  return h().app.inject({ method: 'GET', url: `/api/v1/attributed-users?display_id=${displayId}`, headers: p.headers });
}

async function iosInstall(p: TestProject): Promise<string> {
  const iid = randomUUID().replace(/-/g, '').slice(0, 20);
  const res = await post(
    h(),
    'init',
    { token: p.token, platform: 'IOS', install_instance_id: iid, device_data: {} },
    { remoteAddress: randomIp() },
  );
  expect(res.statusCode).toBe(202);
  await attribute(h(), p, iid);
  return iid;
}

describe('a user attributed through an Android install who logs in on an iPhone', () => {
  // Was: the login's data.device_data replaced the user's, so the row paired the Android install's
  // campaign, ad set and installed_at with the iPhone's device (brand Apple, its device_id).
  it('when attributed-users lists the user, then device_data is still the device the campaign brought', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const { campaign, iid } = await attributedInstall(h(), p);
    await trigger(h(), p.token, iid, 'u-x', { data: { device_data: ANDROID_DEVICE } });
    const iphone = await iosInstall(p);

    const login = await post(h(), 'trigger', {
      token: p.token,
      platform: 'IOS',
      install_instance_id: iphone,
      user_data: { id: 'u-x', mixpanel_distinct_id: 'mp-ios' },
      data: { device_data: IPHONE_DEVICE },
    });
    expect(login.json().data.trigger).toBe(false);

    const [user] = (await listUsers(p, campaign.displayId)).json().data.users;
    // Extras of the login come back.
    expect(user.user_data.mixpanel_distinct_id).toBe('mp-ios');
    expect(user.ad_set_id).toBe('as1');
    expect(user.user_data.device_data).toMatchObject({
      brand: 'samsung',
      device_name: 'samsung SM-S911B',
      device_id: '9774D56D682E549C',
      api_level: 34,
    });
  });
});
