// Sends a reporting scenario (report-scenario.ts) through the real write paths, with the clock
// (deps.now) set to each fact's time: campaign create / edit / delete and spend through /api/v1,
// clicks through the link route, installs through /api/client/init + the attribution job, then app
// opens, re-engagements (handle-deeplink), trigger, capture-event, capture-payment and
// remove-captured-payment in time order; finally the fact writer's flush.
// One thing the clock does not reach: installs.created_at takes Postgres's now(), and it is the
// install time attribution and cohorts use. Each install's row is moved to its scenario time right
// after init (before it is attributed), as if init had run then.
import type { LightMyRequestResponse } from 'fastify';
import { attributeInstall } from '../../src/domain/attribution/attribute-install.ts';
import { flushAllFacts } from '../../src/domain/facts/flush-facts.ts';
import { FACT_TABLES } from '../../src/domain/facts/tables.ts';
import type { Domain } from '../../src/store/postgres/domains.ts';
import { ANDROID_UA, IPHONE_UA } from './client.ts';
import * as f from './factories.ts';
import type { Harness, TestProject } from './harness.ts';
import type { SClick, Scenario } from './report-scenario.ts';

export type WrittenCampaign = {
  id: number;
  displayId: string;
  createdAt: string;
  domain: Domain;
  listingNames: string[];
  account: { id: number; name: string } | null;
};

export type Written = {
  p: TestProject;
  campaigns: WrittenCampaign[];
  clickIds: string[];
};

function expectStatus(res: LightMyRequestResponse, status: number, what: string): LightMyRequestResponse {
  if (res.statusCode !== status) {
    throw new Error(`${what} answered ${res.statusCode}: ${res.body}`);
  }
  return res;
}

async function at<T>(h: Harness, ts: number, fn: () => Promise<T>): Promise<T> {
  const real = h.deps.now;
  h.deps.now = () => ts;
  try {
    return await fn();
  } finally {
    h.deps.now = real;
  }
}

async function writeCampaigns(h: Harness, p: TestProject, s: Scenario): Promise<WrittenCampaign[]> {
  const { app, deps } = h;
  const primary = await f.domain(deps, p, { primary: true });
  const android = await f.storeListing(deps, p, 'ANDROID', `Play ${p.project.name}`);
  const ios = await f.storeListing(deps, p, 'IOS', `App Store ${p.project.name}`);
  const out: WrittenCampaign[] = [];
  for (const c of s.campaigns) {
    const own = c.ownDomain ? await f.domain(deps, p) : null;
    const created = await f.campaign(app, p, {
      name: c.name,
      ...(c.network ? { ad_network: c.network } : {}),
      ...(c.deeplink ? { deeplink: c.deeplink } : {}),
      ...(own ? { domain: own.name } : {}),
      store_listing_ids: c.listings.map((l) => (l === 'ANDROID' ? android.id : ios.id)),
    });
    let account: WrittenCampaign['account'] = null;
    if (c.withAccount) {
      const a = await f.networkAccount(deps, p, c.network ?? 'META');
      await deps.sql`UPDATE campaigns SET network_account_id = ${a.id} WHERE id = ${created.id}`;
      account = { id: a.id, name: a.name };
    }
    if (!c.active) {
      const res = await app.inject({
        method: 'PATCH',
        url: `/api/v1/campaigns/${created.display_id}`,
        headers: p.headers,
        payload: { active: false },
      });
      expectStatus(res, 200, 'edit campaign');
    }
    const [row] = await deps.sql<{ created_at: Date }[]>`SELECT created_at FROM campaigns WHERE id = ${created.id}`;
    out.push({
      id: created.id,
      displayId: created.display_id,
      createdAt: row?.created_at.toISOString() ?? '',
      domain: own ?? primary,
      listingNames: [...c.listings].sort().map((l) => (l === 'ANDROID' ? android.name : ios.name)),
      account,
    });
  }
  return out;
}

function clickQuery(c: SClick): string {
  const q = new URLSearchParams();
  const add = (k: string, v: string | undefined) => v && q.set(k, v);
  add('adset_id', c.adSet?.id);
  add('adset_name', c.adSet?.name);
  add('ad_id', c.creative?.id);
  add('ad_name', c.creative?.name);
  add('keyword_id', c.keyword?.id);
  add('keyword', c.keyword?.name);
  add('idfa', c.idfa ?? undefined);
  return q.toString();
}

async function writeClicks(h: Harness, s: Scenario, campaigns: WrittenCampaign[]): Promise<string[]> {
  const ids: string[] = [];
  for (const c of s.clicks) {
    const res = await at(h, c.ts, () =>
      h.app.inject({
        method: 'GET',
        url: `/${campaigns[c.campaign]?.displayId}?${clickQuery(c)}`,
        headers: { host: 'attr.test', 'user-agent': c.platform === 'IOS' ? IPHONE_UA : ANDROID_UA },
        remoteAddress: c.ip,
      }),
    );
    expectStatus(res, 302, 'link');
    ids.push(new URL(String(res.headers.location)).searchParams.get('referrer') ?? '');
  }
  return ids;
}

async function writeInstalls(h: Harness, p: TestProject, s: Scenario, referrers: string[]): Promise<void> {
  for (const x of s.installs) {
    const deviceData: Record<string, unknown> = x.platform === 'IOS' ? { idfa: x.deviceId } : { gaid: x.deviceId };
    if (x.platform === 'ANDROID' && x.click !== null) {
      deviceData.install_ref = referrers[x.click];
    }
    const body = { token: p.token, platform: x.platform, install_instance_id: x.iid, device_data: deviceData };
    const res = await at(h, x.ts, () =>
      h.app.inject({ method: 'POST', url: '/api/client/init', payload: body, remoteAddress: x.ip }),
    );
    expectStatus(res, 202, 'init');
    await h.deps.sql`UPDATE installs SET created_at = ${new Date(x.ts)}
      WHERE project_id = ${p.project.id} AND install_instance_id = ${x.iid}`;
    await at(h, x.ts + 1000, () => attributeInstall(h.deps, { projectId: p.project.id, installInstanceId: x.iid }));
  }
}

type Action = { ts: number; run: () => Promise<unknown> };

function activity(h: Harness, p: TestProject, s: Scenario, campaigns: WrittenCampaign[]): Action[] {
  const post = (path: string, status: number, body: Record<string, unknown>, install: number) => async () => {
    const x = s.installs[install];
    const payload = { token: p.token, platform: x?.platform, install_instance_id: x?.iid, ...body };
    const res = await h.app.inject({ method: 'POST', url: `/api/client/${path}`, payload, remoteAddress: x?.ip });
    return expectStatus(res, status, path);
  };
  return [
    ...s.opens.map((o) => ({ ts: o.ts, run: post('init', 202, { device_data: {} }, o.install) })),
    ...s.reengagements.map((e) => ({
      ts: e.ts,
      run: post(
        'handle-deeplink',
        200,
        { deeplink_url: `https://attr.test/?c=${campaigns[e.campaign]?.displayId}` },
        e.install,
      ),
    })),
    ...s.signups.map((u) => ({ ts: u.ts, run: post('trigger', 200, { user_data: { id: u.userId } }, u.install) })),
    ...s.events.map((e) => ({
      ts: e.ts,
      run: post(
        'capture-event',
        200,
        { event_name: e.name, event_data: e.amount ? { amount: Number(e.amount) } : {} },
        e.install,
      ),
    })),
    ...s.payments.flatMap((x) => [
      {
        ts: x.ts,
        run: post(
          'capture-payment',
          201,
          { amount: Number(x.amount), payment_id: x.paymentId, type: x.type, status: x.status },
          x.install,
        ),
      },
      ...(x.removedTs === null
        ? []
        : [{ ts: x.removedTs, run: post('remove-captured-payment', 200, { payment_id: x.paymentId }, x.install) }]),
    ]),
  ];
}

async function writeSpend(h: Harness, p: TestProject, s: Scenario, campaigns: WrittenCampaign[]): Promise<void> {
  for (const round of [0, 1]) {
    const rows = s.spends
      .filter((x) => x.amounts[round] !== undefined)
      .map((x) => ({
        day: x.day,
        campaign_display_id: campaigns[x.campaign]?.displayId,
        ad_set_id: x.adSet?.id ?? '',
        ad_set_name: x.adSet?.name ?? '',
        creative_id: x.creative?.id ?? '',
        creative_name: x.creative?.name ?? '',
        keyword_id: x.keyword?.id ?? '',
        keyword_name: x.keyword?.name ?? '',
        amount: x.amounts[round],
      }));
    const res = await h.app.inject({ method: 'PUT', url: '/api/v1/spend', headers: p.headers, payload: { rows } });
    expectStatus(res, 200, 'spend');
    if (res.json().data.rejected.length > 0) {
      throw new Error(`spend rows rejected: ${res.body}`);
    }
  }
}

export async function writeScenario(h: Harness, p: TestProject, s: Scenario): Promise<Written> {
  const campaigns = await writeCampaigns(h, p, s);
  const referrers = await writeClicks(h, s, campaigns);
  await flushAllFacts(h.deps, FACT_TABLES);
  await writeInstalls(h, p, s, referrers);
  for (const a of activity(h, p, s, campaigns).sort((x, y) => x.ts - y.ts)) {
    await at(h, a.ts, a.run);
  }
  await writeSpend(h, p, s, campaigns);
  for (const [i, c] of s.campaigns.entries()) {
    if (c.deleted) {
      const res = await h.app.inject({
        method: 'DELETE',
        url: `/api/v1/campaigns/${campaigns[i]?.displayId}`,
        headers: p.headers,
      });
      expectStatus(res, 204, 'delete campaign');
    }
  }
  await flushAllFacts(h.deps, FACT_TABLES);
  return { p, campaigns, clickIds: referrers };
}
