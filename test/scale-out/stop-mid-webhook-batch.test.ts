// Scaled out: a worker stopped (graceful, as SIGTERM does) while it POSTs a batch of webhooks to
// a slow receiver, with a second worker still running. README "Outgoing deliveries": "a webhook's
// 2xx counts once its status line arrives, even if its body never ends (a retry would deliver it
// twice)"; README "Roles and scaling out": any number of ROLE=worker processes. A worker stopped
// mid-delivery leaves nothing lost and nothing sent twice: shutdown waited 10 s for the batch, then
// closed the stores under the POST in flight, whose answer was never recorded, and the other worker
// POSTed that row again once its lease ran out. Now the batch gives its untried rows back.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkers } from '../../jobs/worker.ts';
import { addWebhook } from '../../src/domain/deliveries/add-webhook.ts';
import { processRedisUrl } from '../support/client.ts';
import { deliveryEnv, deliveryRows, registeredUser } from '../support/deliveries.ts';
import { until } from '../support/fact-counts.ts';
import { closeHarness, type Harness, makeHarness, newProject } from '../support/harness.ts';
import { hasRedis } from './instances.ts';

/** A receiver that answers 200 only after `delayMs` (slow, but inside the 5 s webhook limit). */
class SlowReceiver {
  readonly hits: { headers: IncomingHttpHeaders; body: string }[] = [];
  private server: Server | undefined;
  url = '';
  constructor(private readonly delayMs: number) {}
  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.hits.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        setTimeout(() => res.writeHead(200).end(), this.delayMs);
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }
  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

const receiver = new SlowReceiver(3_000);
let a: Harness | undefined;
let b: Harness | undefined;
const stops: (() => Promise<void>)[] = [];
let aClosed = false;

beforeAll(async () => {
  await receiver.start();
  if (!hasRedis) {
    return;
  }
  const env = { ...deliveryEnv(), REDIS_URL: processRedisUrl() ?? '' };
  a = await makeHarness({ env });
  b = await makeHarness({ env });
});
afterAll(async () => {
  for (const s of stops) {
    await s().catch(() => {});
  }
  if (a && !aClosed) {
    await closeHarness(a);
  }
  if (b) {
    await closeHarness(b);
  }
  await receiver.stop();
});

describe.skipIf(!hasRedis)('a worker stopped mid-way through a slow webhook batch', () => {
  it('when one of two workers is stopped while POSTing sign-up webhooks to a slow receiver, then every sign-up is POSTed exactly once and ends sent', async () => {
    const x = a as Harness;
    const y = b as Harness;
    const p = await newProject(x.deps);
    await addWebhook(x.deps, p.project.id, { url: receiver.url, events: ['signup'] });
    const users = Array.from({ length: 5 }, (_, i) => `u-${i}-${randomUUID().slice(0, 8)}`);
    for (const u of users) {
      await registeredUser(x, p, { userId: u });
    }
    expect((await deliveryRows(x.deps, p)).map((r) => r.status)).toEqual(users.map(() => 'pending'));

    // Only A works at first, so A's job holds the batch; B joins once A is POSTing.
    stops.push(await startWorkers(x.deps));
    await until('the receiver got the first POST', () => receiver.hits.length >= 1, 20_000);
    stops.push(await startWorkers(y.deps));
    // A graceful stop of A (what main.ts's SIGTERM does after the HTTP server): its workers stop,
    // then its stores close (jobs still running after 10 s are left to be retried).
    const stopA = stops.shift() as () => Promise<void>;
    await stopA();
    await closeHarness(x);
    aClosed = true;

    await until(
      'no delivery of the project is pending',
      async () => (await deliveryRows(y.deps, p)).every((r) => r.status !== 'pending'),
      100_000,
    );
    await new Promise((r) => setTimeout(r, 4_000));

    const perUser = users.map((u) => receiver.hits.filter((h) => JSON.parse(h.body).user_id === u).length);
    // Each sign-up reached the receiver once (no repeat of a POST it had answered 200).
    expect(perUser).toEqual(users.map(() => 1));
    expect((await deliveryRows(y.deps, p)).map((r) => r.status)).toEqual(users.map(() => 'sent'));
  }, 150_000);
});
