// Every client route at once over a few users (catalog §4a: concurrency): SDKs retry, and one user's
// devices send trigger, set-user-data, payments and refunds close together. Commit groups and lone
// statements then lock the same install and user rows in different orders, and Postgres picks
// deadlock victims (40P01); before pool.ts retried them, 1-9 requests in 4,000 answered 500. Each
// route's answers must be its documented ones: no 5xx.
import { randomInt, randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { post, useClientHarness } from '../../support/client.ts';
import { registeredUser } from '../../support/commerce.ts';

const h = useClientHarness();

type User = Awaited<ReturnType<typeof registeredUser>>;

const DEVICE = { gaid: randomUUID(), system_version: '14' };
const PAYMENT_IDS = ['p1', 'p2', 'p3'];
const pick = <T>(xs: T[]): T => xs[randomInt(xs.length)] as T;

const ROUTES: ((u: User) => [string, Record<string, unknown>])[] = [
  (u) => ['trigger', { user_data: { id: u.userId, email: 'a@example.com' }, data: { device_data: DEVICE } }],
  (u) => ['trigger', { user_data: { id: `${u.userId}-alt` }, data: { device_data: DEVICE } }],
  (u) => ['set-user-data', { user_data: { id: u.userId, name: 'N', phone: '+4915112345678' } }],
  (u) => ['customer-user-id', { user_id: `${u.userId}-c${randomInt(2)}` }],
  () => ['capture-event', { event_name: 'e', event_id: `ev-${randomInt(5)}`, event_data: { amount: 1 } }],
  (u) => ['capture-payment', { amount: 9.99, payment_id: pick(PAYMENT_IDS), user_id: u.userId }],
  (u) => ['remove-captured-payment', { payment_id: pick(PAYMENT_IDS), user_id: u.userId }],
  (u) => ['remove-captured-payment', { user_id: u.userId }],
  () => ['update-push-token', { push_token: `tok-${randomInt(3)}` }],
  () => ['integrations', { integration_info: { [`k${randomInt(3)}`]: 'v' } }],
  () => ['init', { app_version: '1', package_version: '1', device_data: DEVICE }],
  () => ['attribution-data', {}],
  () => ['handle-deeplink', { deeplink_url: 'https://example.com/x', device_data: DEVICE }],
];

it('when 3,000 requests over every client route hit 4 users at once (50 in flight), then none answers 5xx', async () => {
  const users: User[] = [];
  for (let i = 0; i < 4; i++) {
    users.push(await registeredUser(h(), `storm-${i}`));
  }
  const statuses = new Map<string, number>();
  let sent = 0;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (sent++ < 3000) {
        const u = pick(users);
        const [route, body] = pick(ROUTES)(u);
        const res = await post(h(), route, {
          token: u.p.token,
          platform: 'ANDROID',
          install_instance_id: u.iid,
          ...body,
        });
        const k = `${route} ${res.statusCode}${res.statusCode >= 500 ? ` ${res.body}` : ''}`;
        statuses.set(k, (statuses.get(k) ?? 0) + 1);
      }
    }),
  );
  const failed = [...statuses].filter(([k]) => / 5\d\d/.test(k));
  expect(failed).toEqual([]);
  // Every route was reached and answered as documented (2xx here: all inputs are valid).
  expect([...statuses.keys()].filter((k) => !/ 20[012]$/.test(k))).toEqual([]);
}, 120_000);
