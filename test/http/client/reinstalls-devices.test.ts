// Reinstalls by device id, end to end. product-notes "Remarketing / reattribution": a reinstall is
// matched by GAID / IDFA (needs ATT on iOS); README "Attribution": an install whose device ids or
// user id were seen before under another install id (within the reattribution window) is a
// `reinstall`; README "Reporting": installs / reinstalls are decisions of kind install /
// reinstall, reinstalls shown in view=retargeting. real-clients §1: iOS install ids are 20
// characters [A-Za-z0-9].
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  attribute,
  attributionFacts,
  campaignWithListings,
  clickLink,
  flushFacts,
  IPHONE_UA,
  init,
  installRows,
  post,
  randomIp,
} from '../../support/client.ts';
import { newProject, useHarness } from '../../support/harness.ts';
import { attributionResult, campaignRow, iosInit, iosInstallId } from '../../support/remarketing.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

describe('Android reinstall (new install id, same GAID)', () => {
  it('when the device reinstalls from a click on another campaign, then the reinstall goes to the new campaign and only to retargeting', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const first = await campaignWithListings(deps, p, { name: 'UA' });
    const second = await campaignWithListings(deps, p, { name: 'Winback', deeplink: 'myapp://winback' });
    const gaid = randomUUID();
    const ip1 = randomIp();
    const c1 = await clickLink(h(), first, { ip: ip1, agoMs: 10 * 60_000 });
    await flushFacts(h());
    const iid1 = randomUUID();
    await init(h(), p.token, { install_instance_id: iid1, device_data: { install_ref: c1.referrer, gaid } }, ip1);
    expect((await attribute(h(), p, iid1))?.kind).toBe('install');

    const ip2 = randomIp();
    const c2 = await clickLink(h(), second, { ip: ip2 });
    await flushFacts(h());
    const iid2 = randomUUID();
    await init(h(), p.token, { install_instance_id: iid2, device_data: { install_ref: c2.referrer, gaid } }, ip2);
    const d2 = await attribute(h(), p, iid2);
    await flushFacts(h());

    expect(d2).toMatchObject({ kind: 'reinstall', method: 'play_referrer', campaignId: second.id });
    const facts = await attributionFacts(deps, p);
    expect(facts.map((f) => [f.install_instance_id, f.kind, f.campaign_id])).toEqual([
      [iid1, 'install', first.id],
      [iid2, 'reinstall', second.id],
    ]);
    expect(await campaignRow(h(), p, first.id)).toMatchObject({ installs: '1' });
    expect(await campaignRow(h(), p, second.id)).toMatchObject({ installs: '0' });
    expect(await campaignRow(h(), p, first.id, 'view=retargeting')).toMatchObject({
      reinstalls: '0',
      reengagements: '0',
    });
    expect(await campaignRow(h(), p, second.id, 'view=retargeting')).toMatchObject({
      reinstalls: '1',
      reengagements: '0',
    });
  });

  it('when the device reinstalls with no new click, then it is an organic reinstall and the first campaign keeps its one install', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const first = await campaignWithListings(deps, p, { name: 'UA' });
    const gaid = randomUUID();
    const ip = randomIp();
    const c1 = await clickLink(h(), first, { ip, agoMs: 10 * 60_000 });
    await flushFacts(h());
    const iid1 = randomUUID();
    await init(h(), p.token, { install_instance_id: iid1, device_data: { install_ref: c1.referrer, gaid } }, ip);
    await attribute(h(), p, iid1);

    const iid2 = randomUUID();
    await init(h(), p.token, { install_instance_id: iid2, device_data: { gaid } }, randomIp());
    const d2 = await attribute(h(), p, iid2);
    await flushFacts(h());

    expect(d2).toMatchObject({ kind: 'reinstall', method: 'organic', campaignId: 0 });
    expect(await campaignRow(h(), p, first.id)).toMatchObject({ installs: '1' });
    expect(await campaignRow(h(), p, first.id, 'view=retargeting')).toMatchObject({ installs: '1', reinstalls: '0' });
  });

  it('when the same GAID comes upper-cased on the reinstall, then it is still a reinstall', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const gaid = randomUUID();
    const iid1 = randomUUID();
    await init(h(), p.token, { install_instance_id: iid1, device_data: { gaid } }, randomIp());
    await attribute(h(), p, iid1);
    const iid2 = randomUUID();
    await init(h(), p.token, { install_instance_id: iid2, device_data: { gaid: gaid.toUpperCase() } }, randomIp());

    expect((await attribute(h(), p, iid2))?.kind).toBe('reinstall');
  });
});

describe('iOS reinstall (20-character install ids)', () => {
  it('when the reinstall carries the same IDFA and a retargeting click carried it, then it is a reinstall of that campaign by ad_id', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const winback = await campaignWithListings(deps, p, { name: 'Winback' });
    const idfa = randomUUID().toUpperCase();
    const iid1 = iosInstallId();
    expect((await iosInit(h(), p, iid1, { idfa, idfv: randomUUID().toUpperCase() }, randomIp())).statusCode).toBe(202);
    expect((await attribute(h(), p, iid1))?.kind).toBe('install');

    await clickLink(h(), winback, { ip: randomIp(), userAgent: IPHONE_UA, query: `idfa=${idfa}` });
    await flushFacts(h());
    const iid2 = iosInstallId();
    expect((await iosInit(h(), p, iid2, { idfa, idfv: randomUUID().toUpperCase() }, randomIp())).statusCode).toBe(202);
    const d2 = await attribute(h(), p, iid2);
    await flushFacts(h());

    expect(d2).toMatchObject({ kind: 'reinstall', method: 'ad_id', campaignId: winback.id });
    expect(await campaignRow(h(), p, winback.id, 'view=retargeting')).toMatchObject({ installs: '0', reinstalls: '1' });
    const res = await attributionResult(h(), p, `device_identifier=${idfa}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      display_id: winback.displayId,
      match: { reinstall: true, method: 'ad_id' },
    });
  });

  it('when ATT is off on the reinstall (no IDFA) and the IDFV changed, then it is a new install (nothing to match it by)', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const idfa = randomUUID().toUpperCase();
    const iid1 = iosInstallId();
    await iosInit(h(), p, iid1, { idfa, idfv: randomUUID().toUpperCase() }, randomIp());
    await attribute(h(), p, iid1);
    const iid2 = iosInstallId();
    await iosInit(h(), p, iid2, { idfv: randomUUID().toUpperCase() }, randomIp());

    expect((await attribute(h(), p, iid2))?.kind).toBe('install');
  });

  it('when the user logs in on the reinstall (same user id, no device id in common), then the install is marked a reinstall', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid1 = iosInstallId();
    await iosInit(h(), p, iid1, { idfv: randomUUID().toUpperCase() }, randomIp());
    await attribute(h(), p, iid1);
    const userId = `u-${randomUUID()}`;
    const trigger = (iid: string) =>
      post(h(), 'trigger', {
        token: p.token,
        platform: 'IOS',
        install_instance_id: iid,
        user_data: { id: userId },
        data: {},
      });
    expect((await trigger(iid1)).statusCode).toBe(200);
    const iid2 = iosInstallId();
    await iosInit(h(), p, iid2, { idfv: randomUUID().toUpperCase() }, randomIp());
    await attribute(h(), p, iid2);

    await trigger(iid2);

    const rows = await installRows(deps, p);
    expect(rows.find((r) => r.install_instance_id === iid2)).toMatchObject({ is_reinstall: true });
  });
});
