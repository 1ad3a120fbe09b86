// Network resolvers end to end: init through the real route, the attribution job handler, the
// operator CLI for mappings and keys. Issue: "Meta install referrer and Apple Search Ads tokens are
// accepted as inputs through a resolver interface (network calls behind it)". Apple AdServices is
// faked by a local HTTP server (the only outbound call); its answer is chosen by the token.
// Decided here: 400 → no claim at once; 404 (token not known yet), 5xx, timeout → RetryLaterError
// NETWORK_RETRY_LIMIT times, then decided without the claim; redirects and oversized answers → no
// claim, no retry.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/main.ts';
import { APPLE_NOT_YET_RETRY_LIMIT } from '../../../src/domain/attribution/apple-search-ads.ts';
import { attributeInstalls, RetryLaterError } from '../../../src/domain/attribution/attribute-install.ts';
import { NETWORK_RETRY_LIMIT } from '../../../src/domain/attribution/resolvers.ts';
import { createCampaign } from '../../../src/domain/campaigns/create-campaign.ts';
import { updateAttributionSettings } from '../../../src/store/postgres/attribution-settings.ts';
import {
  attribute,
  campaignWithListings,
  clickLink,
  flushFacts,
  IPHONE_UA,
  init,
  installRows,
  randomIp,
} from '../../support/client.ts';
import { startFakeApple, appleToken as token } from '../../support/fake-apple.ts';
import { newProject, type TestProject, testEnv, useHarness } from '../../support/harness.ts';
import { META_PLAINTEXT, metaInstallRef, sealMeta } from '../../support/meta-referrer.ts';

const apple = await startFakeApple();
afterAll(() => apple.close());

const SECRETS_KEY = randomBytes(32).toString('hex');
const h = useHarness({
  env: { RATE_LIMITS_ENABLED: 'false', APPLE_ADS_ATTRIBUTION_URL: apple.url, SECRETS_KEY },
});

// --- CLI ------------------------------------------------------------------------------------------

let cliEnv: Record<string, string | undefined>;
beforeAll(async () => {
  cliEnv = await testEnv({ SECRETS_KEY });
});

async function cli(argv: string[], env = cliEnv): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, env, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

async function cliJson(...argv: string[]): Promise<Record<string, unknown>> {
  const r = await cli([...argv, '--json']);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out) as Record<string, unknown>;
}

// --- helpers --------------------------------------------------------------------------------------

async function mappedCampaign(p: TestProject, network: string, networkCampaignId: string) {
  const c = await createCampaign(h().deps, p.project, { name: `${network} campaign`, adNetwork: network });
  const mapped = await cliJson(
    'campaigns',
    'set-network-id',
    '--project',
    p.project.id,
    '--display-id',
    c.displayId,
    '--network-campaign-id',
    networkCampaignId,
  );
  expect(mapped).toEqual({ display_id: c.displayId, network, network_campaign_id: networkCampaignId });
  return c;
}

async function iosInit(p: TestProject, adsToken: string, ip = randomIp()): Promise<string> {
  const iid = randomUUID();
  const res = await init(
    h(),
    p.token,
    {
      platform: 'IOS',
      install_instance_id: iid,
      device_data: { device: 'iPhone', system_version: '17.4.1', adservices_attribution_token: adsToken },
    },
    ip,
  );
  expect(res.statusCode).toBe(202);
  return iid;
}

async function androidInit(p: TestProject, metaRef: unknown): Promise<string> {
  const iid = randomUUID();
  const res = await init(h(), p.token, { install_instance_id: iid, device_data: { meta_install_ref: metaRef } });
  expect(res.statusCode).toBe(202);
  return iid;
}

async function installRow(p: TestProject, iid: string) {
  return (await installRows(h().deps, p)).find((r) => r.install_instance_id === iid);
}

// --- Apple Search Ads -----------------------------------------------------------------------------

describe('Apple Search Ads', () => {
  it('when Apple attributes the token to a mapped campaign, then the install is apple_search_ads with its ids', async () => {
    const p = await newProject(h().deps);
    const campaign = await mappedCampaign(p, 'APPLE_SEARCH_ADS', '542370539');
    const t = token('200', '542370539');
    const iid = await iosInit(p, t);

    const decision = await attribute(h(), p, iid);

    expect(decision).toMatchObject({
      method: 'apple_search_ads',
      attributionType: 'INORGANIC',
      touchType: 'click',
      campaignId: campaign.id,
      network: 'APPLE_SEARCH_ADS',
      adSetId: '542317095',
      keywordId: '87675432',
      creativeId: '542317136',
      click: null,
    });
    expect(apple.requestsFor(t)).toEqual([{ method: 'POST', path: '/api/v1/', contentType: 'text/plain', body: t }]);
    expect(await installRow(p, iid)).toMatchObject({
      attribution_status: 'decided',
      attribution_method: 'apple_search_ads',
      campaign_id: campaign.id,
      network: 'APPLE_SEARCH_ADS',
      ad_set_id: '542317095',
      keyword_id: '87675432',
      creative_id: '542317136',
    });
  });

  it.each([
    ['Apple campaign is not mapped to ours', '200', '111'],
    ['Apple answers attribution false', '200', ''],
    ['Apple answers 400 (invalid token)', '400', ''],
    ['Apple redirects (never followed)', 'redirect', ''],
    ['Apple answers more than the size cap', 'huge', '542370539'],
  ])('when %s, then there is no claim and the install is organic at once', async (_name, plan, arg) => {
    const p = await newProject(h().deps);
    await mappedCampaign(p, 'APPLE_SEARCH_ADS', '542370539');
    const t = token(plan, arg);
    const iid = await iosInit(p, t);

    const decision = await attribute(h(), p, iid);

    expect(decision).toMatchObject({ method: 'organic', attributionType: 'ORGANIC', campaignId: 0 });
    expect(apple.requestsFor(t)).toHaveLength(1);
    expect(apple.elsewhere()).toEqual([]);
  });

  it.each([
    ['500', '500', NETWORK_RETRY_LIMIT],
    ['404 (the token is not known yet)', '404', APPLE_NOT_YET_RETRY_LIMIT],
  ])(
    'when Apple answers %s every time, then the job retries (status %s) %i times, then decides without the claim',
    async (_name, status, retries) => {
      const p = await newProject(h().deps);
      await mappedCampaign(p, 'APPLE_SEARCH_ADS', '542370539');
      const t = token(status);
      const iid = await iosInit(p, t);

      for (let i = 0; i < retries; i++) {
        await expect(attribute(h(), p, iid)).rejects.toThrow(RetryLaterError);
      }
      expect(await installRow(p, iid)).toMatchObject({ attribution_status: 'pending' });
      const decision = await attribute(h(), p, iid);

      expect(decision).toMatchObject({ method: 'organic', attributionType: 'ORGANIC' });
      expect(apple.requestsFor(t)).toHaveLength(retries + 1);
      expect(await installRow(p, iid)).toMatchObject({ attribution_status: 'decided', attribution_method: 'organic' });
    },
  );

  it('when Apple keeps answering 404 and the device clicked our link, then once the retries are spent the install falls through to fingerprint', async () => {
    const p = await newProject(h().deps);
    const campaign = await campaignWithListings(h().deps, p);
    const ip = randomIp();
    await clickLink(h(), campaign, { ip, userAgent: IPHONE_UA });
    await flushFacts(h());
    const iid = await iosInit(p, token('404'), ip);

    for (let i = 0; i < APPLE_NOT_YET_RETRY_LIMIT; i++) {
      await expect(attribute(h(), p, iid)).rejects.toThrow(RetryLaterError);
    }
    const decision = await attribute(h(), p, iid);

    expect(decision).toMatchObject({ method: 'fingerprint', campaignId: campaign.id });
  });

  it('when one install of a batch cannot reach Apple, then only its job retries and the others are decided', async () => {
    const p = await newProject(h().deps);
    const campaign = await mappedCampaign(p, 'APPLE_SEARCH_ADS', '542370539');
    const down = await iosInit(p, token('500'));
    const claimed = await iosInit(p, token('200', '542370539'));
    const organic = await iosInit(p, token('200'));
    const jobs = [down, claimed, organic].map((installInstanceId) => ({ projectId: p.project.id, installInstanceId }));

    const [first, second, third] = await attributeInstalls(h().deps, jobs);

    expect(first).toMatchObject({ status: 'rejected', reason: expect.any(RetryLaterError) });
    expect(second).toMatchObject({
      status: 'fulfilled',
      value: { method: 'apple_search_ads', campaignId: campaign.id },
    });
    expect(third).toMatchObject({ status: 'fulfilled', value: { method: 'organic' } });
    expect(await installRow(p, down)).toMatchObject({ attribution_status: 'pending' });
    expect(await installRow(p, claimed)).toMatchObject({ attribution_status: 'decided', campaign_id: campaign.id });
  });

  it.each([
    ['500 once', '500,200'],
    // Apple: a 404 comes when the token is too fresh (an app's first launch); retry every 5 s up to 3 times.
    ['404 once (the token is too fresh)', '404,200'],
  ])('when Apple answers %s and then the record, then the retry gets the claim', async (_name, plan) => {
    const p = await newProject(h().deps);
    const campaign = await mappedCampaign(p, 'APPLE_SEARCH_ADS', '542370539');
    const t = token(plan, '542370539');
    const iid = await iosInit(p, t);

    await expect(attribute(h(), p, iid)).rejects.toThrow(RetryLaterError);
    const decision = await attribute(h(), p, iid);

    expect(decision).toMatchObject({ method: 'apple_search_ads', campaignId: campaign.id });
    expect(apple.requestsFor(t)).toHaveLength(2);
  });

  it('when Apple does not answer within the time limit, then the job asks to be retried', async () => {
    const p = await newProject(h().deps);
    const iid = await iosInit(p, token('hang'));

    await expect(attribute(h(), p, iid)).rejects.toThrow(/Apple AdServices: no complete answer within 1500 ms/);
    expect(await installRow(p, iid)).toMatchObject({ attribution_status: 'pending' });
  });

  it('when the project turned network resolvers off, then Apple is not asked', async () => {
    const p = await newProject(h().deps);
    await mappedCampaign(p, 'APPLE_SEARCH_ADS', '542370539');
    await updateAttributionSettings(h().deps.sql, p.project.id, { methods: { network_resolvers: false } });
    const t = token('200', '542370539');
    const iid = await iosInit(p, t);

    const decision = await attribute(h(), p, iid);

    expect(decision).toMatchObject({ method: 'organic' });
    expect(apple.requestsFor(t)).toEqual([]);
  });
});

// --- Meta install referrer ------------------------------------------------------------------------

describe('Meta install referrer', () => {
  const appKey = randomBytes(32).toString('hex');
  const sealed = () => sealMeta(JSON.stringify(META_PLAINTEXT), appKey);

  async function projectWithKey(): Promise<TestProject> {
    const p = await newProject(h().deps);
    const set = await cliJson('projects', 'set-meta-referrer-key', '--project', p.project.id, '--key', appKey);
    expect(set).toEqual({
      project_id: p.project.id,
      meta_referrer_key_set: true,
      key_fingerprint: expect.stringMatching(/^[0-9a-f]{12}$/),
    });
    return p;
  }

  it('when the referrer names a mapped META campaign (is_ct 1), then the install is meta_referrer by click', async () => {
    const p = await projectWithKey();
    const campaign = await mappedCampaign(p, 'META', META_PLAINTEXT.campaign_id);
    const iid = await androidInit(p, metaInstallRef(sealed(), 1));

    const decision = await attribute(h(), p, iid);

    expect(decision).toMatchObject({
      method: 'meta_referrer',
      attributionType: 'INORGANIC',
      touchType: 'click',
      campaignId: campaign.id,
      network: 'META',
      adSetId: META_PLAINTEXT.adgroup_id,
      adSetName: META_PLAINTEXT.adgroup_name,
      creativeId: META_PLAINTEXT.ad_id,
    });
    expect(await installRow(p, iid)).toMatchObject({
      attribution_method: 'meta_referrer',
      campaign_id: campaign.id,
      network: 'META',
      ad_set_id: META_PLAINTEXT.adgroup_id,
      ad_set_name: META_PLAINTEXT.adgroup_name,
      creative_id: META_PLAINTEXT.ad_id,
    });
  });

  it('when long non-Latin names make the sealed referrer pass 4,096 characters, then it is still decrypted (not cut)', async () => {
    const p = await projectWithKey();
    const campaign = await mappedCampaign(p, 'META', META_PLAINTEXT.campaign_id);
    // Escaped as \\uXXXX (6 bytes a character), 300-character names seal to about 11,000 hex digits.
    const plaintext = JSON.stringify({
      ...META_PLAINTEXT,
      adgroup_name: 'अ'.repeat(300),
      campaign_name: 'क'.repeat(300),
    }).replace(/[\u0080-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
    const ref = metaInstallRef(sealMeta(plaintext, appKey), 1);
    expect(ref.install_referrer.length).toBeGreaterThan(4096);
    const iid = await androidInit(p, ref);

    const decision = await attribute(h(), p, iid);

    // Was: organic (device_data strings were cut at 4,096 characters, breaking the seal).
    expect(decision).toMatchObject({ method: 'meta_referrer', campaignId: campaign.id, adSetName: 'अ'.repeat(256) });
  });

  it('when the plaintext gives its 17-digit ids as JSON numbers, then they keep every digit (no rounding to another campaign)', async () => {
    const p = await projectWithKey();
    const campaign = await mappedCampaign(p, 'META', '23850000000000003');
    // Rounded as doubles, ...003 and ...001 would read as 23850000000000004 and ...000000.
    const numeric = JSON.stringify(META_PLAINTEXT)
      .replace('"23850000000000003"', '23850000000000003')
      .replace('"23850000000000001"', '23850000000000001');
    const iid = await androidInit(p, metaInstallRef(sealMeta(numeric, appKey), 1));

    const decision = await attribute(h(), p, iid);

    expect(decision).toMatchObject({
      method: 'meta_referrer',
      campaignId: campaign.id,
      creativeId: '23850000000000001',
    });
  });

  it("when is_ct is 0 and the campaign's meta_campaign_id matches, then the touch is a view", async () => {
    const p = await projectWithKey();
    const c = await createCampaign(h().deps, p.project, { name: 'Meta view', adNetwork: 'META' });
    await h().deps.sql`UPDATE campaigns SET meta_campaign_id = ${META_PLAINTEXT.campaign_id} WHERE id = ${c.id}`;
    const iid = await androidInit(p, metaInstallRef(sealed(), 0));

    const decision = await attribute(h(), p, iid);

    expect(decision).toMatchObject({ method: 'meta_referrer', touchType: 'view', campaignId: c.id });
  });

  it('when the project has no key, or the referrer was sealed for another app, then the install is organic', async () => {
    const noKey = await newProject(h().deps);
    await mappedCampaign(noKey, 'META', META_PLAINTEXT.campaign_id);
    const withKey = await projectWithKey();
    await mappedCampaign(withKey, 'META', META_PLAINTEXT.campaign_id);
    const otherApp = sealMeta(JSON.stringify(META_PLAINTEXT), randomBytes(32).toString('hex'));

    const a = await attribute(h(), noKey, await androidInit(noKey, metaInstallRef(sealed())));
    const b = await attribute(h(), withKey, await androidInit(withKey, metaInstallRef(otherApp)));

    expect([a?.method, b?.method]).toEqual(['organic', 'organic']);
  });

  it('when the process deciding has no SECRETS_KEY (service mode), then the job fails naming SECRETS_KEY, the install stays pending, and a process with the key decides it meta_referrer', async () => {
    const p = await projectWithKey();
    const campaign = await mappedCampaign(p, 'META', META_PLAINTEXT.campaign_id);
    const iid = await androidInit(p, metaInstallRef(sealed(), 1));
    const noKey = { ...h().deps, config: { ...h().deps.config, secretsKey: undefined } };

    const [outcome] = await attributeInstalls(noKey, [{ projectId: p.project.id, installInstanceId: iid }]);

    expect(outcome?.status).toBe('rejected');
    expect(String((outcome as PromiseRejectedResult).reason)).toContain('SECRETS_KEY: not set');
    expect(await installRow(p, iid)).toMatchObject({ attribution_status: 'pending' });
    expect(await attribute(h(), p, iid)).toMatchObject({ method: 'meta_referrer', campaignId: campaign.id });
  });

  it('when the META campaign is not mapped, then the install is organic', async () => {
    const p = await projectWithKey();
    await createCampaign(h().deps, p.project, { name: 'Unmapped', adNetwork: 'META' });
    const iid = await androidInit(p, metaInstallRef(sealed()));

    expect(await attribute(h(), p, iid)).toMatchObject({ method: 'organic' });
  });
});

// --- operator CLI ---------------------------------------------------------------------------------

describe('CLI', () => {
  it('when a Meta key is set, then only its sealed form is stored', async () => {
    const p = await newProject(h().deps);
    const key = randomBytes(32).toString('hex');

    await cliJson('projects', 'set-meta-referrer-key', '--project', p.project.id, '--key', key.toUpperCase());

    const [row] = await h().deps.sql<{ enc: string }[]>`
      SELECT meta_referrer_key_enc AS enc FROM projects WHERE id = ${p.project.id}`;
    expect(row?.enc).toMatch(/^v1\./);
    expect(row?.enc).not.toContain(key);
  });

  it('when the Meta key is not 64 hex characters, then exit 2 without echoing it', async () => {
    const p = await newProject(h().deps);

    const r = await cli(['projects', 'set-meta-referrer-key', '--project', p.project.id, '--key', 'abc123secret']);

    expect(r.code).toBe(2);
    expect(r.err).toBe('error: --key must be the Install Referrer Decryption Key: 64 hex characters');
  });

  it('when SECRETS_KEY is unset with DATABASE_URL (service mode), then the key is refused naming SECRETS_KEY', async () => {
    const p = await newProject(h().deps);
    const env = { ...cliEnv, SECRETS_KEY: undefined };

    const r = await cli(
      ['projects', 'set-meta-referrer-key', '--project', p.project.id, '--key', 'ab'.repeat(32)],
      env,
    );

    expect(r.code).toBe(2);
    expect(r.err).toContain('SECRETS_KEY: not set, and DATABASE_URL is (service mode)');
    const [row] = await h().deps.sql<{ enc: string | null }[]>`
      SELECT meta_referrer_key_enc AS enc FROM projects WHERE id = ${p.project.id}`;
    expect(row?.enc).toBeNull();
  });

  it('when a mapping names an unknown campaign, a campaign without network, or a taken id, then exit 2', async () => {
    const p = await newProject(h().deps);
    const first = await mappedCampaign(p, 'APPLE_SEARCH_ADS', '1001');
    const second = await createCampaign(h().deps, p.project, { name: 'second', adNetwork: 'Apple Search Ads' });
    const plain = await createCampaign(h().deps, p.project, { name: 'no network' });
    const map = (displayId: string, id: string) =>
      cli([
        'campaigns',
        'set-network-id',
        '--project',
        p.project.id,
        '--display-id',
        displayId,
        '--network-campaign-id',
        id,
      ]);

    const unknown = await map('nope', '1');
    const noNetwork = await map(plain.displayId, '1');
    const taken = await map(second.displayId, '1001');
    const badId = await map(second.displayId, 'a b');

    expect(unknown).toMatchObject({ code: 2, err: `error: campaign 'nope' not found in project '${p.project.id}'` });
    expect(noNetwork.code).toBe(2);
    expect(noNetwork.err).toMatch(/has no ad network/);
    expect(taken).toMatchObject({
      code: 2,
      err: `error: APPLE_SEARCH_ADS campaign '1001' is already mapped to campaign '${first.displayId}'`,
    });
    expect(badId.code).toBe(2);
    expect(badId.err).toMatch(/--network-campaign-id 'a b' must be/);
  });
});
