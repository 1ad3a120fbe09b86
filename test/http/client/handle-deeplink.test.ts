// POST /api/client/handle-deeplink (spec: {deeplink, is_linkrunner, processing}; real-clients §4.10:
// apps route on the returned deeplink). One of the project's campaign links (service host or a
// project domain, `/<id>` or `/?c=<id>`) returns the campaign's deeplink and: for an install still
// pending, becomes its deterministic `link` signal (processing true); for a decided install, records
// one `reengagement` decision, unless the same campaign was opened within 3 min (an SDK retry, also
// one racing the first request: decided on the locked install row).
// Any other URL is echoed back with is_linkrunner false.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  attribute,
  attributionData,
  attributionFacts,
  campaignWithListings,
  flushFacts,
  init,
  installRows,
  post,
} from '../../support/client.ts';
import * as factories from '../../support/factories.ts';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

const HANDLED = 'Deeplink processed successfully';
const BAD_TOKEN = { msg: 'Invalid or missing project token.', status: 400 };
const BAD_URL = { msg: 'deeplink_url must be a non-empty string.', status: 400 };

afterEach(() => {
  vi.restoreAllMocks();
});

function deeplink(p: TestProject, iid: string, url: unknown) {
  return post(h(), 'handle-deeplink', {
    token: p.token,
    platform: 'ANDROID',
    install_instance_id: iid,
    deeplink_url: url,
    device_data: {},
  });
}

const answer = (deeplink: string, isLinkrunner: boolean, processing: boolean) => ({
  msg: HANDLED,
  status: 200,
  data: { deeplink, is_linkrunner: isLinkrunner, processing },
});

async function decidedInstall(p: TestProject): Promise<string> {
  const iid = randomUUID();
  await init(h(), p.token, { install_instance_id: iid });
  await attribute(h(), p, iid);
  return iid;
}

async function reengagements(p: TestProject) {
  await flushFacts(h());
  return (await attributionFacts(h().deps, p)).filter((f) => f.kind === 'reengagement');
}

describe('200', () => {
  it('when the URL is not a campaign link, then it is echoed back with is_linkrunner false and nothing is recorded', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = await decidedInstall(p);

    const res = await deeplink(p, iid, 'https://example.com/product/42?ref=mail');

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(answer('https://example.com/product/42?ref=mail', false, false));
    expect(await reengagements(p)).toEqual([]);
  });

  it('when a pending install opens a campaign link, then processing is true and the install is attributed by link', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const campaign = await campaignWithListings(deps, p);
    const iid = randomUUID();
    await init(h(), p.token, { install_instance_id: iid });
    const enqueue = vi.spyOn(deps.queue, 'enqueueOrHold');
    const url = `https://attr.test/${campaign.displayId}?utm_source=push`;

    const res = await deeplink(p, iid, url);

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(answer('myapp://promo/spring', true, true));
    expect((await installRows(deps, p))[0]?.init_link).toBe(url);
    expect(enqueue).toHaveBeenCalledWith(
      'attribution',
      { projectId: p.project.id, installInstanceId: iid },
      expect.any(String),
    );
    const decision = await attribute(h(), p, iid);
    expect(decision).toMatchObject({ method: 'link', campaignId: campaign.id, displayId: campaign.displayId });
    const data = (await attributionData(h(), p.token, iid)).json().data;
    expect(data).toMatchObject({
      deeplink: 'myapp://promo/spring',
      campaign_data: { id: campaign.displayId, type: 'INORGANIC' },
    });
    await flushFacts(h());
    expect(await attributionFacts(deps, p)).toEqual([
      {
        install_instance_id: iid,
        kind: 'install',
        method: 'link',
        attribution_type: 'INORGANIC',
        campaign_id: campaign.id,
        display_id: campaign.displayId,
        click_id: '',
      },
    ]);
  });

  it('when init carried a link that names no campaign and a pending install then opens a campaign link, then it is attributed by that link', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const campaign = await campaignWithListings(deps, p);
    const other = await campaignWithListings(deps, p);
    const iid = randomUUID();
    await init(h(), p.token, { install_instance_id: iid, link: 'https://shop.example.com/product/42' });
    const url = `https://attr.test/?c=${campaign.displayId}`;

    expect((await deeplink(p, iid, url)).json()).toEqual(answer('myapp://promo/spring', true, true));
    // A second campaign link does not replace the first: that one names a campaign.
    await deeplink(p, iid, `https://attr.test/?c=${other.displayId}`);

    expect((await installRows(deps, p))[0]?.init_link).toBe(url);
    expect(await attribute(h(), p, iid)).toMatchObject({ method: 'link', campaignId: campaign.id });
  });

  it('when a decided install opens a campaign link, then one reengagement is recorded and a retry records none', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const campaign = await campaignWithListings(deps, p);
    const iid = await decidedInstall(p);
    const url = `https://attr.test/?c=${campaign.displayId}`;

    const first = await deeplink(p, iid, url);
    const retry = await deeplink(p, iid, url);

    expect(first.json()).toEqual(answer('myapp://promo/spring', true, false));
    expect(retry.json()).toEqual(answer('myapp://promo/spring', true, false));
    expect(await reengagements(p)).toEqual([
      {
        install_instance_id: iid,
        kind: 'reengagement',
        method: 'deeplink',
        attribution_type: 'INORGANIC',
        campaign_id: campaign.id,
        display_id: campaign.displayId,
        click_id: '',
      },
    ]);
    expect((await installRows(deps, p))[0]).toMatchObject({
      attribution_status: 'decided',
      attribution_method: 'organic',
      reengagement_campaign_id: campaign.id,
    });
  });

  it('when the same link is reported 5 times at once (a retry racing the first request), then one reengagement is recorded', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const campaign = await campaignWithListings(deps, p);
    const iid = await decidedInstall(p);
    const url = `https://attr.test/?c=${campaign.displayId}`;

    const all = await Promise.all(Array.from({ length: 5 }, () => deeplink(p, iid, url)));

    expect(all.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect((await reengagements(p)).map((r) => r.campaign_id)).toEqual([campaign.id]);
  });

  it.each([
    ['32 s later (a 30 s timeout, then 2 s of backoff)', 32_000],
    ['after the whole backoff (5 attempts of 30 s, 2 + 4 + 8 + 16 s between them)', 4 * 30_000 + 30_000 - 1_000],
  ])('when iOS sends the same link again %s, then it is a retry and records nothing', async (_when, laterMs) => {
    // real-clients §1/§3: the iOS session times out at 30 s and retries timeouts and 5xx four times.
    const { deps } = h();
    const p = await newProject(deps);
    const campaign = await campaignWithListings(deps, p);
    const iid = await decidedInstall(p);
    const url = `https://attr.test/${campaign.displayId}`;
    await deeplink(p, iid, url);
    const realNow = deps.now;
    deps.now = () => realNow() + laterMs;
    try {
      await deeplink(p, iid, url);
    } finally {
      deps.now = realNow;
    }

    expect(await reengagements(p)).toHaveLength(1);
  });

  it('when the same campaign is opened again after 3 minutes, then a second reengagement is recorded', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const campaign = await campaignWithListings(deps, p);
    const iid = await decidedInstall(p);
    const url = `https://attr.test/${campaign.displayId}`;
    await deeplink(p, iid, url);
    await deps.sql`UPDATE installs SET reengaged_at = now() - interval '181 seconds'
      WHERE project_id = ${p.project.id} AND install_instance_id = ${iid}`;

    await deeplink(p, iid, url);

    expect(await reengagements(p)).toHaveLength(2);
  });

  it('when another campaign is opened within 3 minutes, then it is recorded too (only a repeat of the same one is a retry)', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const spring = await campaignWithListings(deps, p);
    const summer = await campaignWithListings(deps, p, { name: 'Summer', deeplink: 'myapp://promo/summer' });
    const iid = await decidedInstall(p);

    await deeplink(p, iid, `https://attr.test/${spring.displayId}`);
    const res = await deeplink(p, iid, `https://attr.test/${summer.displayId}`);

    expect(res.json()).toEqual(answer('myapp://promo/summer', true, false));
    expect((await reengagements(p)).map((r) => r.campaign_id).sort()).toEqual([spring.id, summer.id].sort());
  });

  it("when the link is on one of the project's own domains, then it is recognised", async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const domain = await factories.domain(deps, p);
    const campaign = await campaignWithListings(deps, p);
    const iid = await decidedInstall(p);

    const res = await deeplink(p, iid, `https://${domain.name}/${campaign.displayId}`);

    expect(res.json()).toEqual(answer('myapp://promo/spring', true, false));
  });

  it.each([
    ['with a port the service host was not printed with', (id: string) => `https://attr.test:8443/${id}`],
    ['in capitals with a trailing dot', (id: string) => `https://ATTR.TEST./${id}`],
    ['on localhost', (id: string) => `http://localhost:3000/${id}`],
  ])(
    'when the link is on the service host %s, then it is recognised as the link handler recognises it',
    async (_how, link) => {
      const { deps } = h();
      const p = await newProject(deps);
      const campaign = await campaignWithListings(deps, p);
      const iid = await decidedInstall(p);

      const res = await deeplink(p, iid, link(campaign.displayId));

      expect(res.json()).toEqual(answer('myapp://promo/spring', true, false));
    },
  );

  it('when the link names a campaign in its path and another in c, then the path one counts, as the link handler opened it', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const opened = await campaignWithListings(deps, p, { name: 'Opened', deeplink: 'myapp://opened' });
    const other = await campaignWithListings(deps, p, { name: 'Other', deeplink: 'myapp://other' });
    const iid = await decidedInstall(p);

    const res = await deeplink(p, iid, `https://attr.test/${opened.displayId}?c=${other.displayId}`);

    expect(res.json()).toEqual(answer('myapp://opened', true, false));
    expect((await reengagements(p)).map((r) => r.campaign_id)).toEqual([opened.id]);
  });

  it('when the app reports its own universal link (a deeper path with ?c=), then c names the campaign', async () => {
    // product notes: a non-short link is "the deeplink host and path plus ?c=<display_id>".
    const { deps } = h();
    const p = await newProject(deps);
    const domain = await factories.domain(deps, p);
    const campaign = await campaignWithListings(deps, p);
    const iid = await decidedInstall(p);

    const res = await deeplink(p, iid, `https://${domain.name}/promo/summer25?c=${campaign.displayId}`);

    expect(res.json()).toEqual(answer('myapp://promo/spring', true, false));
  });

  it('when the campaign has no deeplink, then the opened URL is returned', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const campaign = await campaignWithListings(deps, p, { deeplink: undefined });
    const iid = await decidedInstall(p);
    const url = `https://attr.test/${campaign.displayId}`;

    const res = await deeplink(p, iid, url);

    expect(res.json()).toEqual(answer(url, true, false));
  });

  it('when an install the service never saw opens a campaign link, then the deeplink comes back with processing true and the link waits for its init (handle-deeplink-before-init.test.ts)', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const campaign = await campaignWithListings(deps, p);

    const res = await deeplink(p, randomUUID(), `https://attr.test/${campaign.displayId}`);

    expect(res.json()).toEqual(answer('myapp://promo/spring', true, true));
    expect(await installRows(deps, p)).toEqual([]);
    expect(await reengagements(p)).toEqual([]);
  });

  it('when deeplink_url is a javascript: URL, then it is not a campaign link and nothing is recorded', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = await decidedInstall(p);

    const res = await deeplink(p, iid, 'javascript:alert(document.cookie)');

    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(answer('javascript:alert(document.cookie)', false, false));
    expect(await reengagements(p)).toEqual([]);
  });

  it('when deeplink_url carries NUL, then 200 (never 500) and it is read without it', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const campaign = await campaignWithListings(deps, p);
    const iid = randomUUID();
    await init(h(), p.token, { install_instance_id: iid });

    const res = await deeplink(p, iid, `https://attr.test/?c=${campaign.displayId}&x=\u0000`);

    // The link's own parameter x (empty once cleaned) rides on the deeplink (referral codes).
    expect(res.json()).toEqual(answer('myapp://promo/spring?x=', true, true));
    expect((await installRows(deps, p))[0]?.init_link).toBe(`https://attr.test/?c=${campaign.displayId}&x=`);
  });
});

describe('400', () => {
  it.each([
    ['missing', undefined],
    ['unknown', 'pt_unknown'],
  ])('when the token is %s, then 400 with the client token text', async (_case, token) => {
    const res = await post(h(), 'handle-deeplink', {
      token,
      install_instance_id: randomUUID(),
      deeplink_url: 'https://attr.test/x',
    });

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(BAD_TOKEN);
  });

  it('when the server key is sent as the token, then 400', async () => {
    const { deps } = h();
    const p = await newProject(deps);

    const res = await deeplink({ ...p, token: p.serverKey }, randomUUID(), 'https://attr.test/x');

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(BAD_TOKEN);
  });

  it('when install_instance_id is missing, then 400 with its text', async () => {
    const { deps } = h();
    const p = await newProject(deps);

    const res = await post(h(), 'handle-deeplink', { token: p.token, deeplink_url: 'https://attr.test/x' });

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      msg: 'install_instance_id must be a non-empty string of at most 128 characters.',
      status: 400,
    });
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['blank', '   '],
    ['a number', 42],
    ['an object', { url: 'https://attr.test/x' }],
    ['5,000 characters (over the 4 KiB URL cap)', `https://attr.test/?q=${'a'.repeat(5000)}`],
  ])('when deeplink_url is %s, then 400 with its text', async (_case, url) => {
    const { deps } = h();
    const p = await newProject(deps);

    const res = await deeplink(p, randomUUID(), url);

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(BAD_URL);
  });
});

describe('413', () => {
  it('when deeplink_url is 100 KB, then 413 Request body too large.', async () => {
    const { deps } = h();
    const p = await newProject(deps);

    const res = await deeplink(p, randomUUID(), `https://attr.test/?q=${'a'.repeat(100 * 1024)}`);

    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ msg: 'Request body too large.', status: 413 });
  });
});

describe('tenant isolation', () => {
  it("when project B's app opens A's campaign link, then it is not a campaign link for B and A records nothing", async () => {
    const { deps } = h();
    const a = await newProject(deps);
    const b = await newProject(deps);
    const campaign = await campaignWithListings(deps, a);
    const iid = await decidedInstall(a);
    await init(h(), b.token, { install_instance_id: iid });
    const url = `https://attr.test/${campaign.displayId}`;

    const res = await deeplink(b, iid, url);

    expect(res.json()).toEqual(answer(url, false, false));
    expect(await reengagements(a)).toEqual([]);
    expect((await installRows(deps, b))[0]?.init_link).toBeNull();
  });
});
