// The reattribution window and a project's attribution settings on reinstalls. product-notes: "the
// reattribution window is 90 days" (`projects set-attribution --reattribution-window-days`). As in
// the attribution industry, it bounds how long after an install of a device another install of it
// is a reinstall: a device whose most recent earlier install (its created_at) is older than the
// window is acquired anew, a new install (user acquisition); within the window, a reinstall.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { setAttributionSettings } from '../../../src/domain/projects/set-attribution-settings.ts';
import {
  attribute,
  campaignWithListings,
  clickLink,
  flushFacts,
  init,
  installRows,
  randomIp,
} from '../../support/client.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';
import { campaignRow } from '../../support/remarketing.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

/** An install of the device (its GAID), decided. */
async function installOf(p: TestProject, gaid: string): Promise<string> {
  const iid = randomUUID();
  await init(h(), p.token, { install_instance_id: iid, device_data: { gaid } }, randomIp());
  await attribute(h(), p, iid);
  return iid;
}

/** Moves install `iid`'s creation to `ms` before install `of`'s (both already stored). */
async function createdBefore(p: TestProject, iid: string, of: string, ms: number) {
  const later = (await installRows(h().deps, p)).find((r) => r.install_instance_id === of);
  if (!later) {
    throw new Error(`install ${of} not stored`);
  }
  const at = new Date((later.created_at as Date).getTime() - ms);
  await h().deps.sql`UPDATE installs SET created_at = ${at}
    WHERE project_id = ${p.project.id} AND install_instance_id = ${iid}`;
}

describe('projects set-attribution on reinstalls', () => {
  it('when ad_id is disabled after an install was decided by it, then that decision stands and only the later reinstall is decided without it', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const ua = await campaignWithListings(deps, p, { name: 'UA' });
    const winback = await campaignWithListings(deps, p, { name: 'Winback' });
    const gaid = randomUUID();
    await clickLink(h(), ua, { ip: randomIp(), query: `gaid=${gaid}` });
    await flushFacts(h());
    const iid1 = randomUUID();
    await init(h(), p.token, { install_instance_id: iid1, device_data: { gaid } }, randomIp());
    expect(await attribute(h(), p, iid1)).toMatchObject({ kind: 'install', method: 'ad_id', campaignId: ua.id });

    await setAttributionSettings(deps, p.project.id, { methods: { ad_id: false } });
    await clickLink(h(), winback, { ip: randomIp(), query: `gaid=${gaid}` });
    await flushFacts(h());
    const iid2 = randomUUID();
    await init(h(), p.token, { install_instance_id: iid2, device_data: { gaid } }, randomIp());
    const d2 = await attribute(h(), p, iid2);
    await flushFacts(h());

    expect(d2).toMatchObject({ kind: 'reinstall', method: 'organic', campaignId: 0 });
    expect(await campaignRow(h(), p, ua.id)).toMatchObject({ installs: '1' });
    const rows = await installRows(deps, p);
    expect(rows.find((r) => r.install_instance_id === iid1)).toMatchObject({
      attribution_method: 'ad_id',
      campaign_id: ua.id,
    });
  });
});

describe('the reattribution window', () => {
  it('when the earlier install of the device is older than the window, then a reinstall from a new UA click is a new install of that campaign', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    await setAttributionSettings(deps, p.project.id, { reattribution_window_days: 1 });
    const ua = await campaignWithListings(deps, p, { name: 'UA' });
    const gaid = randomUUID();
    const iid1 = await installOf(p, gaid);
    // Installed 2 days ago, last active an hour ago: the window runs from the install, not from activity.
    await deps.sql`UPDATE installs SET created_at = now() - interval '2 days', last_seen_at = now() - interval '1 hour'
      WHERE project_id = ${p.project.id} AND install_instance_id = ${iid1}`;
    await clickLink(h(), ua, { ip: randomIp(), query: `gaid=${gaid}` });
    await flushFacts(h());
    const iid2 = randomUUID();
    await init(h(), p.token, { install_instance_id: iid2, device_data: { gaid } }, randomIp());

    expect(await attribute(h(), p, iid2)).toMatchObject({ kind: 'install', method: 'ad_id', campaignId: ua.id });
    await flushFacts(h());
    expect(await campaignRow(h(), p, ua.id)).toMatchObject({ installs: '1' });
    expect(await campaignRow(h(), p, ua.id, 'view=retargeting')).toMatchObject({ reinstalls: '0' });
  });

  it('when an older install is outside the window but a later one is inside it, then it is a reinstall', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    await setAttributionSettings(deps, p.project.id, { reattribution_window_days: 30 });
    const gaid = randomUUID();
    const oldest = await installOf(p, gaid);
    const recent = await installOf(p, gaid);
    await deps.sql`UPDATE installs SET created_at = now() - interval '400 days'
      WHERE project_id = ${p.project.id} AND install_instance_id = ${oldest}`;
    await deps.sql`UPDATE installs SET created_at = now() - interval '29 days'
      WHERE project_id = ${p.project.id} AND install_instance_id = ${recent}`;
    const iid = randomUUID();
    await init(h(), p.token, { install_instance_id: iid, device_data: { gaid } }, randomIp());

    expect((await attribute(h(), p, iid))?.kind).toBe('reinstall');
  });

  it.each([
    ['exactly the window before it', 'reinstall', 0],
    ['the window and 1 ms before it', 'install', 1],
  ])('when the earlier install was created %s, then the install is a %s', async (_when, kind, extraMs) => {
    const { deps } = h();
    const p = await newProject(deps);
    await setAttributionSettings(deps, p.project.id, { reattribution_window_days: 7 });
    const gaid = randomUUID();
    const earlier = await installOf(p, gaid);
    const iid = randomUUID();
    await init(h(), p.token, { install_instance_id: iid, device_data: { gaid } }, randomIp());
    await createdBefore(p, earlier, iid, 7 * 86_400_000 + extraMs);

    expect((await attribute(h(), p, iid))?.kind).toBe(kind);
  });

  it('when the project keeps the default window (90 days), then a device installed 89 days ago reinstalls and one installed 91 days ago installs', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const kinds: string[] = [];
    for (const days of [89, 91]) {
      const gaid = randomUUID();
      const earlier = await installOf(p, gaid);
      await deps.sql`UPDATE installs SET created_at = now() - make_interval(days => ${days})
        WHERE project_id = ${p.project.id} AND install_instance_id = ${earlier}`;
      const iid = randomUUID();
      await init(h(), p.token, { install_instance_id: iid, device_data: { gaid } }, randomIp());
      kinds.push((await attribute(h(), p, iid))?.kind ?? '');
    }

    expect(kinds).toEqual(['reinstall', 'install']);
  });
});
