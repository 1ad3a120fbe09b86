// Helpers for the /api/client and attribution tests: request shorthands, a click on a campaign
// link, an attributed install, and readers of the Postgres and ClickHouse state those tests assert on.
import { randomInt, randomUUID } from 'node:crypto';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { inject } from 'vitest';
import type { Deps } from '../../src/deps.ts';
import { attributeInstall } from '../../src/domain/attribution/attribute-install.ts';
import type { Campaign } from '../../src/domain/campaigns/campaign.ts';
import { type CreateCampaignInput, createCampaign } from '../../src/domain/campaigns/create-campaign.ts';
import { flushAllFacts } from '../../src/domain/facts/flush-facts.ts';
import { FACT_TABLES } from '../../src/domain/facts/tables.ts';
import { addStoreListing } from '../../src/domain/projects/add-store-listing.ts';
import { type Harness, type TestProject, useHarness } from './harness.ts';

export type Res = LightMyRequestResponse;

/**
 * The run's Redis on a db index of this process's own. BullMQ queue names are fixed ('attribution')
 * while each test process has its own Postgres database, so a worker of another process that took
 * this process's job would find no install and drop it.
 */
export function processRedisUrl(): string | undefined {
  const base = inject('redisUrl');
  if (!base) {
    return undefined;
  }
  const url = new URL(base);
  url.pathname = `/${1 + (process.pid % 15)}`;
  return url.toString();
}

/** useHarness with rate limits off unless `env` turns them on (client tests fire many requests). */
export function useClientHarness(env: Record<string, string> = {}): () => Harness {
  return useHarness({ env: { RATE_LIMITS_ENABLED: 'false', ...env } });
}

/** 10.x.y.z, so clicks and installs of different tests never share an IP by chance. */
export const randomIp = (): string => `10.${randomInt(0, 256)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;

export const ANDROID_UA =
  'Mozilla/5.0 (Linux; Android 14; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36';
export const IPHONE_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

/** A campaign with Play and App Store listings (so links redirect and clicks are counted). */
export async function campaignWithListings(
  deps: Deps,
  p: TestProject,
  input: Partial<CreateCampaignInput> = {},
): Promise<Campaign> {
  const play = await addStoreListing(deps, p.project.id, {
    name: 'Play',
    platform: 'ANDROID',
    url: 'https://play.google.com/store/apps/details?id=com.example.app',
  });
  const appStore = await addStoreListing(deps, p.project.id, {
    name: 'App Store',
    platform: 'IOS',
    url: 'https://apps.apple.com/app/id123456789',
  });
  return createCampaign(deps, p.project, {
    name: 'Spring',
    deeplink: 'myapp://promo/spring',
    storeListingIds: [play.id, appStore.id],
    ...input,
  });
}

/**
 * Opens the campaign link (a counted click) `agoMs` in the past (default 1 min, so the install that
 * follows is not flagged for a CTIT under 10 s) and returns the click id the Play referrer carries.
 */
export async function clickLink(
  h: Harness,
  campaign: Pick<Campaign, 'displayId'>,
  opts: { ip: string; userAgent?: string; query?: string; agoMs?: number },
): Promise<{ clickId: string; referrer: string }> {
  const realNow = h.deps.now;
  h.deps.now = () => realNow() - (opts.agoMs ?? 60_000);
  let res: Res;
  try {
    res = await h.app.inject({
      method: 'GET',
      url: `/${campaign.displayId}${opts.query ? `?${opts.query}` : ''}`,
      headers: { host: 'attr.test', 'user-agent': opts.userAgent ?? ANDROID_UA },
      remoteAddress: opts.ip,
    });
  } finally {
    h.deps.now = realNow;
  }
  if (res.statusCode !== 302) {
    throw new Error(`link answered ${res.statusCode}: ${res.body}`);
  }
  const location = new URL(String(res.headers.location));
  const referrer = location.searchParams.get('referrer') ?? '';
  return { clickId: new URLSearchParams(referrer).get('lr_click_id') ?? '', referrer };
}

export function post(
  h: Harness,
  path: string,
  payload: unknown,
  opts: Omit<InjectOptions, 'method' | 'url' | 'payload'> = {},
): Promise<Res> {
  return h.app.inject({
    method: 'POST',
    url: `/api/client/${path}`,
    ...opts,
    payload: payload as InjectOptions['payload'],
  }) as Promise<Res>;
}

export function init(h: Harness, token: string, body: Record<string, unknown> = {}, ip = '10.0.0.1'): Promise<Res> {
  return post(
    h,
    'init',
    { token, platform: 'ANDROID', install_instance_id: randomUUID(), device_data: {}, ...body },
    { remoteAddress: ip },
  );
}

/** handle-deeplink: the Android app of `installInstanceId` opens a link of campaign `displayId`. */
export function openCampaignLink(
  h: Harness,
  token: string,
  installInstanceId: string,
  displayId: string,
): Promise<Res> {
  return post(h, 'handle-deeplink', {
    token,
    platform: 'ANDROID',
    install_instance_id: installInstanceId,
    deeplink_url: `https://attr.test/?c=${displayId}`,
  });
}

export function attributionData(h: Harness, token: string, installInstanceId: string): Promise<Res> {
  return post(h, 'attribution-data', { token, platform: 'ANDROID', install_instance_id: installInstanceId });
}

/** Runs the attribution job for one install, as the worker would. */
export function attribute(h: Harness, p: TestProject, installInstanceId: string) {
  return attributeInstall(h.deps, { projectId: p.project.id, installInstanceId });
}

export function flushFacts(h: Harness): Promise<void> {
  return flushAllFacts(h.deps, FACT_TABLES);
}

export type InstallRow = Record<string, unknown> & {
  install_instance_id: string;
  processing_id: string;
  attribution_status: string;
  attribution_method: string | null;
  campaign_id: number | null;
  open_count: number;
};

export function installRows(deps: Deps, p: TestProject): Promise<InstallRow[]> {
  return deps.sql<InstallRow[]>`SELECT * FROM installs WHERE project_id = ${p.project.id} ORDER BY created_at`;
}

export async function installEvents(
  deps: Deps,
  p: TestProject,
): Promise<{ install_instance_id: string; kind: string }[]> {
  const rs = await deps.ch.query({
    query: `SELECT install_instance_id, kind FROM install_events WHERE project_id = {p:String}
      ORDER BY ts, kind`,
    format: 'JSONEachRow',
    query_params: { p: p.project.id },
  });
  return rs.json();
}

export type AttributionFact = {
  install_instance_id: string;
  kind: string;
  method: string;
  attribution_type: string;
  campaign_id: number;
  display_id: string;
  click_id: string;
};

export async function attributionFacts(deps: Deps, p: TestProject): Promise<AttributionFact[]> {
  const rs = await deps.ch.query({
    query: `SELECT install_instance_id, kind, method, attribution_type, campaign_id, display_id, click_id
      FROM attributions WHERE project_id = {p:String} ORDER BY ts, kind`,
    format: 'JSONEachRow',
    query_params: { p: p.project.id },
  });
  return rs.json();
}

/** Link parameters of the click attributedInstall makes: a Meta ad set and creative. */
export const META_CLICK_QUERY = 'network=meta&adset_id=as1&adset_name=Set%201&ad_id=cr1&ad_name=Creative%201';

/**
 * A campaign, a click on its link a minute ago (flushed to ClickHouse), an Android init whose Play
 * referrer carries the click id, and the attribution job run: an install decided by play_referrer.
 */
export async function attributedInstall(h: Harness, p: TestProject, campaignInput: Partial<CreateCampaignInput> = {}) {
  const campaign = await campaignWithListings(h.deps, p, campaignInput);
  const ip = randomIp();
  const { clickId, referrer } = await clickLink(h, campaign, { ip, query: META_CLICK_QUERY });
  await flushFacts(h);
  const iid = randomUUID();
  const gaid = randomUUID();
  const res = await init(
    h,
    p.token,
    {
      install_instance_id: iid,
      device_data: { install_ref: referrer, gaid, system_version: '14', device_name: 'samsung SM-S911B' },
    },
    ip,
  );
  if (res.statusCode !== 202) {
    throw new Error(`init answered ${res.statusCode}: ${res.body}`);
  }
  const decision = await attribute(h, p, iid);
  if (decision?.method !== 'play_referrer') {
    throw new Error(`expected a play_referrer decision, got ${JSON.stringify(decision)}`);
  }
  return { campaign, iid, gaid, clickId, ip, decision };
}
