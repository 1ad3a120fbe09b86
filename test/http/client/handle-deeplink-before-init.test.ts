// handle-deeplink before the install's init is stored (real-clients §4.1, §4.10): the iOS SDK's
// initialize() never sends `link`, the app calls initialize() and handleDeeplink(url) from separate
// Tasks at cold start, and the SDK never re-sends a deeplink that got a 200. A campaign link for an
// install the service has not stored yet is kept (pending_deeplinks, per project and install id)
// and the install's init takes it as its init link; the answer says processing: true. A kept link
// older than an hour is ignored and deleted by later saves. Init and handle-deeplink at the same
// moment never lose the link (keep-link-for-init.ts).
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Deps } from '../../../src/deps.ts';
import { handleDeeplink } from '../../../src/domain/identity/handle-deeplink.ts';
import {
  attribute,
  campaignWithListings,
  init,
  installRows,
  post,
  randomIp,
  useClientHarness,
} from '../../support/client.ts';
import { newProject, type TestProject } from '../../support/harness.ts';
import { IOS_HEADERS, iosBodies, iosInstallId, send } from '../../support/sdk-wire.ts';

const h = useClientHarness();
const HOUR = 3600_000;

afterEach(() => {
  h().deps.now = Date.now;
});

function deeplink(p: TestProject, iid: string, url: string) {
  return post(h(), 'handle-deeplink', {
    token: p.token,
    platform: 'IOS',
    install_instance_id: iid,
    deeplink_url: url,
    device_data: {},
  });
}

function keptLinks(p: TestProject) {
  return h().deps.sql<{ install_instance_id: string; link: string }[]>`
    SELECT install_instance_id, link FROM pending_deeplinks WHERE project_id = ${p.project.id}
    ORDER BY install_instance_id`;
}

async function initLinkOf(p: TestProject, iid: string): Promise<unknown> {
  return (await installRows(h().deps, p)).find((r) => r.install_instance_id === iid)?.init_link;
}

/** `deps` whose statement keeping the link runs only after `first` is done: init slips in there. */
function keepingAfter(deps: Deps, first: () => Promise<unknown>): Deps {
  const sql = new Proxy(deps.sql, {
    apply(target, self, args: unknown[]) {
      const strings = args[0];
      if (Array.isArray(strings) && strings.join('').includes('INSERT INTO pending_deeplinks')) {
        return first().then(() => Reflect.apply(target, self, args));
      }
      return Reflect.apply(target, self, args);
    },
  });
  return { ...deps, sql };
}

describe('200', () => {
  it('when the campaign link is reported a moment before init is stored, then the install is attributed to that campaign by link', async () => {
    const p = await newProject(h().deps);
    const campaign = await campaignWithListings(h().deps, p);
    const iid = iosInstallId();
    const b = iosBodies(p, iid);
    const io = { headers: IOS_HEADERS, ip: randomIp() };

    const opened = await send(h(), 'handle-deeplink', b.deeplink(`https:\\/\\/attr.test\\/${campaign.displayId}`), io);
    expect(opened.statusCode).toBe(200);
    expect(opened.json().data).toEqual({ deeplink: 'myapp://promo/spring', is_linkrunner: true, processing: true });
    expect((await send(h(), 'init', b.init, io)).statusCode).toBe(202);
    const decision = await attribute(h(), p, iid);

    expect(decision).toMatchObject({ method: 'link', campaignId: campaign.id });
    expect((await installRows(h().deps, p))[0]?.campaign_id).toBe(campaign.id);
    expect(await keptLinks(p)).toEqual([]);
  });

  it('when init is stored first, then the same deeplink decides the install by link', async () => {
    const p = await newProject(h().deps);
    const campaign = await campaignWithListings(h().deps, p);
    const iid = iosInstallId();
    const b = iosBodies(p, iid);
    const io = { headers: IOS_HEADERS, ip: randomIp() };

    expect((await send(h(), 'init', b.init, io)).statusCode).toBe(202);
    const opened = await send(h(), 'handle-deeplink', b.deeplink(`https:\\/\\/attr.test\\/${campaign.displayId}`), io);
    const decision = await attribute(h(), p, iid);

    expect(opened.json().data).toEqual({ deeplink: 'myapp://promo/spring', is_linkrunner: true, processing: true });
    expect(decision).toMatchObject({ method: 'link', campaignId: campaign.id });
    expect(await keptLinks(p)).toEqual([]);
  });

  it('when init is stored between the deeplink finding no install and keeping its link, then the link still becomes the init link', async () => {
    const p = await newProject(h().deps);
    const campaign = await campaignWithListings(h().deps, p);
    const iid = randomUUID();
    const link = `https://attr.test/${campaign.displayId}`;
    const deps = keepingAfter(h().deps, () => init(h(), p.token, { install_instance_id: iid }));

    const answer = await handleDeeplink(deps, p.project, { installInstanceId: iid, deeplinkUrl: link });
    const decision = await attribute(h(), p, iid);

    expect(answer).toEqual({ deeplink: 'myapp://promo/spring', is_linkrunner: true, processing: true });
    expect(await initLinkOf(p, iid)).toBe(link);
    expect(decision).toMatchObject({ method: 'link', campaignId: campaign.id });
    expect(await keptLinks(p)).toEqual([]);
  });

  it('when init and the deeplink of 15 installs arrive at the same moment, then every install gets the link as its init link', async () => {
    const p = await newProject(h().deps);
    const campaign = await campaignWithListings(h().deps, p);
    const link = `https://attr.test/${campaign.displayId}`;
    const iids = Array.from({ length: 15 }, () => randomUUID());

    const answers = await Promise.all(
      iids.flatMap((iid) => [init(h(), p.token, { install_instance_id: iid }), deeplink(p, iid, link)]),
    );

    expect(answers.map((r) => r.statusCode)).toEqual(iids.flatMap(() => [202, 200]));
    const rows = await installRows(h().deps, p);
    expect(rows.map((r) => r.init_link)).toEqual(iids.map(() => link));
    expect(await keptLinks(p)).toEqual([]);
  });

  it('when the link is reported three times before init (SDK retries) and then another campaign, then the first campaign link is kept once', async () => {
    const p = await newProject(h().deps);
    const first = await campaignWithListings(h().deps, p, { name: 'A' });
    const other = await campaignWithListings(h().deps, p, { name: 'B' });
    const iid = randomUUID();
    const link = `https://attr.test/${first.displayId}`;

    const retries = [await deeplink(p, iid, link), await deeplink(p, iid, link), await deeplink(p, iid, link)];
    await deeplink(p, iid, `https://attr.test/${other.displayId}`);
    const kept = await keptLinks(p);
    await init(h(), p.token, { install_instance_id: iid });

    expect(retries.map((r) => r.json().data.processing)).toEqual([true, true, true]);
    expect(kept).toEqual([{ install_instance_id: iid, link }]);
    expect(await initLinkOf(p, iid)).toBe(link);
  });

  it('when init carries a link that names no campaign, then the kept campaign link replaces it', async () => {
    const p = await newProject(h().deps);
    const campaign = await campaignWithListings(h().deps, p);
    const iid = randomUUID();
    const link = `https://attr.test/${campaign.displayId}`;
    await deeplink(p, iid, link);

    await init(h(), p.token, { install_instance_id: iid, link: 'https://shop.example.com/product/42' });

    expect(await initLinkOf(p, iid)).toBe(link);
  });

  it('when the link was kept more than an hour before init, then init ignores it and deletes it', async () => {
    const p = await newProject(h().deps);
    const campaign = await campaignWithListings(h().deps, p);
    const iid = randomUUID();
    h().deps.now = () => Date.now() - 2 * HOUR;
    await deeplink(p, iid, `https://attr.test/${campaign.displayId}`);
    h().deps.now = Date.now;

    await init(h(), p.token, { install_instance_id: iid });
    const decision = await attribute(h(), p, iid);

    expect(await initLinkOf(p, iid)).toBeNull();
    expect(decision).toMatchObject({ method: 'organic' });
    expect(await keptLinks(p)).toEqual([]);
  });

  it('when a link was kept more than an hour ago, then a later kept link deletes it', async () => {
    const p = await newProject(h().deps);
    const campaign = await campaignWithListings(h().deps, p);
    const [old, fresh] = [randomUUID(), randomUUID()];
    const link = `https://attr.test/${campaign.displayId}`;
    h().deps.now = () => Date.now() - 2 * HOUR;
    await deeplink(p, old, link);
    h().deps.now = Date.now;

    await deeplink(p, fresh, link);

    expect(await keptLinks(p)).toEqual([{ install_instance_id: fresh, link }]);
  });
});

describe('tenant isolation', () => {
  it("when project A's app keeps a link for an install id and project B's app inits the same id, then only A's install takes it", async () => {
    const a = await newProject(h().deps);
    const b = await newProject(h().deps);
    const campaign = await campaignWithListings(h().deps, a);
    const iid = randomUUID();
    const link = `https://attr.test/${campaign.displayId}`;
    await deeplink(a, iid, link);

    await init(h(), b.token, { install_instance_id: iid });
    const keptAfterB = await keptLinks(a);
    await init(h(), a.token, { install_instance_id: iid });

    expect(await initLinkOf(b, iid)).toBeNull();
    expect(keptAfterB).toEqual([{ install_instance_id: iid, link }]);
    expect(await initLinkOf(a, iid)).toBe(link);
  });
});
