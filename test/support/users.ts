// Helpers for the user tests (trigger, set-user-data, customer-user-id, attributed-users): request
// shorthands and readers of the app_users rows and the ClickHouse sign-up facts they assert on.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Deps } from '../../src/deps.ts';
import { attribute, init, post, type Res, randomIp } from './client.ts';
import type { Harness, TestProject } from './harness.ts';

export type AppUserRow = {
  user_id: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  user_data: Record<string, unknown>;
  device_data: Record<string, unknown>;
  install_instance_id: string;
  is_first_time_user: boolean | null;
  user_created_at: string | null;
  attributed_at: Date;
};

export function appUsers(deps: Deps, p: TestProject): Promise<AppUserRow[]> {
  return deps.sql<AppUserRow[]>`
    SELECT user_id, name, email, phone, user_data, device_data, install_instance_id, is_first_time_user,
      user_created_at, attributed_at
    FROM app_users WHERE project_id = ${p.project.id} ORDER BY created_at, user_id`;
}

export async function installUser(
  deps: Deps,
  p: TestProject,
  iid: string,
): Promise<{ user_id: string | null; is_reinstall: boolean } | undefined> {
  const [row] = await deps.sql<{ user_id: string | null; is_reinstall: boolean }[]>`
    SELECT user_id, is_reinstall FROM installs WHERE project_id = ${p.project.id} AND install_instance_id = ${iid}`;
  return row;
}

export type SignupFact = {
  event_id: string;
  install_instance_id: string;
  user_id: string;
  project_tz: string;
  day: string;
  platform: string;
  is_first_time: number;
  campaign_id: number;
  display_id: string;
  network: string;
  ad_set_id: string;
  ad_set_name: string;
  creative_id: string;
  creative_name: string;
  keyword_id: string;
  keyword_name: string;
  reengagement_campaign_id: number;
};

export async function signupFacts(deps: Deps, p: TestProject): Promise<SignupFact[]> {
  const rs = await deps.ch.query({
    query: `SELECT event_id, install_instance_id, user_id, project_tz, toString(day) AS day, platform, is_first_time,
        campaign_id, display_id, network, ad_set_id, ad_set_name, creative_id, creative_name, keyword_id,
        keyword_name, reengagement_campaign_id
      FROM signups WHERE project_id = {p:String} ORDER BY ts, event_id`,
    format: 'JSONEachRow',
    query_params: { p: p.project.id },
  });
  return rs.json();
}

/** POST /api/client/trigger with an Android-shaped body (user_data.id = userId) plus `extra`. */
export function trigger(
  h: Harness,
  token: string,
  iid: string,
  userId: unknown,
  extra: Record<string, unknown> = {},
): Promise<Res> {
  return post(h, 'trigger', {
    token,
    platform: 'ANDROID',
    install_instance_id: iid,
    user_data: { id: userId },
    data: { device_data: {} },
    ...extra,
  });
}

/** An install that called init (from a random IP) and was decided organic: one to tie users to. */
export async function organicInstall(
  h: Harness,
  p: TestProject,
  opts: { platform?: string; iid?: string } = {},
): Promise<string> {
  const iid = opts.iid ?? randomUUID();
  const res = await init(h, p.token, { install_instance_id: iid, platform: opts.platform ?? 'ANDROID' }, randomIp());
  expect(res.statusCode).toBe(202);
  await attribute(h, p, iid);
  return iid;
}

/** Runs `fn` with deps.now() pinned to `ms` (the trigger time that becomes attributed_at). */
export async function at<T>(h: Harness, ms: number, fn: () => Promise<T>): Promise<T> {
  const realNow = h.deps.now;
  h.deps.now = () => ms;
  try {
    return await fn();
  } finally {
    h.deps.now = realNow;
  }
}
