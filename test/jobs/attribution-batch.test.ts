// Attribution in batches (domain/attribution/attribute-install.ts attributeInstalls): installs of
// several projects decided in one call, their click lookups sharing statements per project. Each
// install must get what it would alone: its own project's clicks only, its own windows, clicks
// from ClickHouse and from the outbox alike; installs already decided or unknown are no-ops.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { attributeInstalls, attributionBatcher } from '../../src/domain/attribution/attribute-install.ts';
import {
  ANDROID_UA,
  campaignWithListings,
  clickLink,
  flushFacts,
  init,
  installRows,
  randomIp,
  useClientHarness,
} from '../support/client.ts';
import { newProject, type TestProject } from '../support/harness.ts';

const h = useClientHarness();

async function androidInit(p: TestProject, ip: string, installRef?: string): Promise<string> {
  const iid = randomUUID();
  const res = await init(
    h(),
    p.token,
    {
      install_instance_id: iid,
      device_data: {
        ...(installRef ? { install_ref: installRef } : {}),
        system_version: '14',
        device_name: 'samsung SM-S911B',
      },
    },
    ip,
  );
  expect(res.statusCode).toBe(202);
  return iid;
}

describe('attribution in batches', () => {
  it("when a busy IP's clicks and a quiet IP's click wait in the outbox, then the quiet install still matches its click", async () => {
    // The outbox read of a batch capped all its IPs together (200 per IP, newest first): 450 clicks
    // behind one NAT address pushed the quiet IP's older click out, and its install was organic
    // until the writer moved the clicks to ClickHouse.
    const { deps, app } = h();
    const p = await newProject(deps);
    const campaign = await campaignWithListings(deps, p);
    const [quietIp, busyIp] = [randomIp(), randomIp()];
    await clickLink(h(), campaign, { ip: quietIp, userAgent: ANDROID_UA, agoMs: 120_000 });
    for (let i = 0; i < 450; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, () =>
          app.inject({
            method: 'GET',
            url: `/${campaign.displayId}`,
            headers: { host: 'attr.test', 'user-agent': ANDROID_UA },
            remoteAddress: busyIp,
          }),
        ),
      );
    }
    const quiet = await androidInit(p, quietIp);
    const busy = await androidInit(p, busyIp);

    const out = await attributeInstalls(deps, [
      { projectId: p.project.id, installInstanceId: quiet },
      { projectId: p.project.id, installInstanceId: busy },
    ]);

    const [q, b] = out.map((o) => (o.status === 'fulfilled' ? o.value : undefined));
    expect(b).toMatchObject({ method: 'fingerprint', campaignId: campaign.id });
    expect(q).toMatchObject({ method: 'fingerprint', campaignId: campaign.id });
  }, 60_000);

  it('when installs of two projects share an IP, then each is matched only to its own project clicks', async () => {
    const a = await newProject(h().deps);
    const b = await newProject(h().deps);
    const campaign = await campaignWithListings(h().deps, a);
    const shared = randomIp();
    const waitingIp = randomIp();
    const stored = await clickLink(h(), campaign, { ip: shared });
    await flushFacts(h());
    // This click stays in the outbox: the batch must find it there.
    await clickLink(h(), campaign, { ip: waitingIp });
    const referred = await clickLink(h(), campaign, { ip: randomIp() });
    const jobs = [
      { project: a, iid: await androidInit(a, shared) },
      { project: b, iid: await androidInit(b, shared) },
      { project: a, iid: await androidInit(a, waitingIp) },
      { project: a, iid: await androidInit(a, randomIp(), referred.referrer) },
    ];

    const outcomes = await attributeInstalls(
      h().deps,
      jobs.map((j) => ({ projectId: j.project.project.id, installInstanceId: j.iid })),
    );

    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value?.method : o.reason))).toEqual([
      'fingerprint',
      'organic',
      'fingerprint',
      'play_referrer',
    ]);
    const [onShared, , onWaiting, onReferrer] = outcomes.map((o) => (o.status === 'fulfilled' ? o.value : undefined));
    expect(onShared).toMatchObject({ campaignId: campaign.id, click: { clickId: stored.clickId } });
    expect(onWaiting).toMatchObject({ campaignId: campaign.id });
    expect(onWaiting?.click?.clickId).not.toBe(stored.clickId);
    expect(onReferrer).toMatchObject({ campaignId: campaign.id, click: { clickId: referred.clickId } });
    expect((await installRows(h().deps, b))[0]).toMatchObject({ attribution_status: 'decided', campaign_id: null });
  });

  it('when a batch holds a decided install, an unknown one and a repeat, then those are no-ops and the install is decided once', async () => {
    const p = await newProject(h().deps);
    const decided = await androidInit(p, randomIp());
    const job = (installInstanceId: string) => ({ projectId: p.project.id, installInstanceId });
    const [first] = await attributeInstalls(h().deps, [job(decided)]);
    const pending = await androidInit(p, randomIp());

    const outcomes = await attributeInstalls(h().deps, [job(decided), job(randomUUID()), job(pending), job(pending)]);

    expect(first).toMatchObject({ status: 'fulfilled', value: { method: 'organic' } });
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    const values = outcomes.map((o) => (o.status === 'fulfilled' ? o.value : 'rejected'));
    expect(values.slice(0, 2)).toEqual([undefined, undefined]);
    // The two runs of one install race; exactly one save wins and records a decision.
    expect(values.slice(2).filter((v) => v !== undefined)).toHaveLength(1);
    expect((await installRows(h().deps, p)).map((r) => r.attribution_status)).toEqual(['decided', 'decided']);
  });

  it('when jobs arrive together, then the batcher decides each and answers each its own decision', async () => {
    const p = await newProject(h().deps);
    const campaign = await campaignWithListings(h().deps, p);
    const ips = Array.from({ length: 40 }, () => randomIp());
    for (const ip of ips.slice(0, 20)) {
      await clickLink(h(), campaign, { ip });
    }
    const iids = await Promise.all(ips.map((ip) => androidInit(p, ip)));
    const attribute = attributionBatcher(h().deps);

    const decisions = await Promise.all(
      iids.map((iid) => attribute({ projectId: p.project.id, installInstanceId: iid })),
    );

    expect(decisions.map((d) => d?.method)).toEqual([
      ...Array<string>(20).fill('fingerprint'),
      ...Array<string>(20).fill('organic'),
    ]);
    expect(decisions.slice(0, 20).map((d) => d?.click?.ip)).toEqual(ips.slice(0, 20));
  });

  it('when installs of a batch share device ids with earlier installs, then only those of the same project are reinstalls', async () => {
    const p = await newProject(h().deps);
    const other = await newProject(h().deps);
    const gaid = randomUUID();
    const idfv = randomUUID().toUpperCase();
    const initWith = async (project: TestProject, deviceData: Record<string, unknown>, platform = 'ANDROID') => {
      const iid = randomUUID();
      const res = await init(
        h(),
        project.token,
        { platform, install_instance_id: iid, device_data: deviceData },
        randomIp(),
      );
      expect(res.statusCode).toBe(202);
      return { projectId: project.project.id, installInstanceId: iid };
    };
    const earlier = [await initWith(p, { gaid }), await initWith(p, { idfv }, 'IOS')];
    await attributeInstalls(h().deps, earlier);
    const jobs = [
      await initWith(p, { gaid: gaid.toUpperCase() }),
      await initWith(p, { idfv: idfv.toLowerCase() }, 'IOS'),
      await initWith(p, { gaid: randomUUID() }),
      await initWith(other, { gaid }),
      await initWith(p, {}),
    ];

    const outcomes = await attributeInstalls(h().deps, jobs);

    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value?.kind : o.reason))).toEqual([
      'reinstall',
      'reinstall',
      'install',
      'install',
      'install',
    ]);
  });
});
