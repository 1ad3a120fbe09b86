// Webhook tests of sign-ups held for their install's attribution: a project with a webhook on the
// fake receiver, an Android install (optionally clicked), a sign-up, and the bodies one install got.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { addWebhook } from '../../src/domain/deliveries/add-webhook.ts';
import { ANDROID_UA, clickLink, post, randomIp } from './client.ts';
import type { FakeWebhook } from './fake-webhook.ts';
import { type Harness, newProject, type TestProject } from './harness.ts';

export async function hookedProject(h: Harness, receiver: FakeWebhook, events = ['install', 'signup']) {
  const p = await newProject(h.deps);
  const hook = await addWebhook(h.deps, p.project.id, { url: receiver.url, events });
  return { p, hook, destination: `webhook:${hook.id}` };
}

export async function initAndroid(
  h: Harness,
  p: TestProject,
  deviceData: Record<string, unknown> = {},
  ip = randomIp(),
): Promise<string> {
  const iid = randomUUID();
  const res = await post(
    h,
    'init',
    { token: p.token, platform: 'ANDROID', install_instance_id: iid, device_data: deviceData },
    { remoteAddress: ip, headers: { 'user-agent': ANDROID_UA } },
  );
  expect(res.statusCode).toBe(202);
  return iid;
}

export async function clickedInstall(h: Harness, p: TestProject, campaign: { displayId: string }): Promise<string> {
  const ip = randomIp();
  const { referrer } = await clickLink(h, campaign, { ip });
  return initAndroid(h, p, { install_ref: referrer }, ip);
}

export async function trigger(h: Harness, p: TestProject, iid: string, userId: string): Promise<void> {
  const res = await post(h, 'trigger', {
    token: p.token,
    platform: 'ANDROID',
    install_instance_id: iid,
    user_data: { id: userId, email: `${userId}@example.com` },
    data: { device_data: {} },
    event: 'SIGNUP',
  });
  expect(res.statusCode).toBe(200);
}

export type Body = Record<string, unknown> & { event_type: string };
export const bodiesFor = (receiver: FakeWebhook, iid: string): Body[] =>
  receiver.hits.filter((x) => x.body.includes(iid)).map((x) => JSON.parse(x.body) as Body);
