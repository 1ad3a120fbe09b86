// How a delivery reads the answer (README, "Outgoing deliveries"): the status decides, and the
// body only fills the log and Meta's events_received check. A body past the 64 KiB cap is cut
// there, never a failure; a webhook's 2xx is accepted once its status line and headers are in,
// even if the body never ends (a retry would be a duplicate), while Meta's 200 needs its body, so a
// body still open at the time limit is retried (Meta drops an event_id it already has).
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWebhook } from '../../src/domain/deliveries/add-webhook.ts';
import { insertDeliveries } from '../../src/store/postgres/deliveries.ts';
import { attemptRows, connectMeta, deliverAt, deliveryEnv, deliveryRows } from '../support/deliveries.ts';
import { newProject, type TestProject, useHarness } from '../support/harness.ts';

// One local server for both: webhooks POST to /hook, Meta's requests to /<version>/<dataset>/events.
// Each request takes the next queued answer (200 "ok" when none is queued).
type Answer = (res: ServerResponse) => void;
const answers: Answer[] = [];
const posts: string[] = [];
let server: Server;
let base = '';
const env = deliveryEnv();
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      posts.push(req.url ?? '');
      (answers.shift() ?? ((r: ServerResponse) => r.writeHead(200).end('ok')))(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  env.META_GRAPH_BASE_URL = base;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});
const h = useHarness({ env });

/** A 2xx or other status whose body is sent at once but never ended. */
const heldOpen =
  (status: number, start: string): Answer =>
  (res) => {
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.write(start);
  };

/** A project with one row queued for a new webhook of its own, or for Meta (connected). */
async function queuedOne(kind: 'webhook' | 'meta'): Promise<{ p: TestProject; destination: string }> {
  answers.length = 0;
  const p = await newProject(h().deps);
  let destination = 'meta';
  if (kind === 'webhook') {
    const hook = await addWebhook(h().deps, p.project.id, { url: `${base}/hook`, events: ['signup'] });
    destination = `webhook:${hook.id}`;
  } else {
    await connectMeta(h().deps, p);
  }
  await insertDeliveries(h().deps.sql, [
    {
      projectId: p.project.id,
      destination,
      eventKey: `signup:${p.project.id}`,
      eventTime: new Date(),
      payload: { event_name: 'AddToCart', event_id: `e-${p.project.id}` },
    },
  ]);
  return { p, destination };
}

/** A second on: a row is due from its insert's microsecond, and a clock in ms may not reach it yet. */
const soon = (): number => Date.now() + 1000;

const statusOf = async (p: TestProject) => (await deliveryRows(h().deps, p)).map((r) => [r.status, r.attempts]);

describe('webhook answers: the status decides', () => {
  it('when the receiver answers 200 with a 200 KiB body, then the delivery is sent and the log keeps the start', async () => {
    const { p, destination } = await queuedOne('webhook');
    answers.push((res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(200 * 1024)));

    expect(await deliverAt(h().deps, p, destination, soon())).toMatchObject({ sent: 1, dead: 0, retry: false });

    expect(await deliveryRows(h().deps, p)).toMatchObject([{ status: 'sent', last_error: null }]);
    expect((await attemptRows(h().deps, p)).map((a) => [a.outcome, a.http_status, a.response.length])).toEqual([
      ['sent', 200, 500],
    ]);
  });

  it('when the receiver answers 503 with a 100 KiB page, then the delivery is retried, not dead', async () => {
    const { p, destination } = await queuedOne('webhook');
    answers.push((res) => res.writeHead(503, { 'content-type': 'text/html' }).end('<p>down</p>'.repeat(10_000)));

    expect(await deliverAt(h().deps, p, destination, soon())).toMatchObject({ sent: 0, dead: 0, retry: true });

    expect(await deliveryRows(h().deps, p)).toMatchObject([
      { status: 'pending', attempts: 1, last_error: expect.stringMatching(/^HTTP 503: <p>down<\/p>/) },
    ]);
  });

  it('when the receiver sends 200 at once but keeps the body open past the timeout, then the delivery is sent and not POSTed again', async () => {
    const { p, destination } = await queuedOne('webhook');
    answers.push(heldOpen(200, 'accepted'));
    const before = posts.length;

    expect(await deliverAt(h().deps, p, destination, soon())).toMatchObject({ sent: 1, retry: false });
    expect((await deliverAt(h().deps, p, destination, Date.now() + 3_600_000)).claimed).toBe(0);

    expect(posts.length - before).toBe(1);
    expect(await statusOf(p)).toEqual([['sent', 1]]);
    expect((await attemptRows(h().deps, p)).map((a) => [a.outcome, a.http_status, a.response])).toEqual([
      ['sent', 200, 'accepted'],
    ]);
  }, 15_000);

  it('when the receiver sends 503 at once but keeps the body open past the timeout, then the delivery is retried', async () => {
    const { p, destination } = await queuedOne('webhook');
    answers.push(heldOpen(503, 'busy'));

    expect(await deliverAt(h().deps, p, destination, soon())).toMatchObject({ sent: 0, retry: true });

    expect(await deliveryRows(h().deps, p)).toMatchObject([
      { status: 'pending', attempts: 1, last_error: 'HTTP 503: busy' },
    ]);
  }, 15_000);
});

describe("Meta's answers: the 200 must report every event", () => {
  const bigAnswer = (received: number) => {
    const messages = Array.from({ length: 2000 }, (_, i) => `note ${i}: ${'m'.repeat(40)}`);
    return JSON.stringify({ events_received: received, messages, fbtrace_id: 'AbC' });
  };

  it('when Meta answers 200 with a body over 64 KiB that reports every event, then the batch is sent', async () => {
    const { p } = await queuedOne('meta');
    answers.push((res) => res.writeHead(200, { 'content-type': 'application/json' }).end(bigAnswer(1)));

    expect(await deliverAt(h().deps, p, 'meta', soon())).toMatchObject({ sent: 1, retry: false });

    expect(await statusOf(p)).toEqual([['sent', 1]]);
  });

  it('when Meta answers 200 with a body over 64 KiB that reports fewer events, then the batch is retried with the reason', async () => {
    const { p } = await queuedOne('meta');
    answers.push((res) => res.writeHead(200, { 'content-type': 'application/json' }).end(bigAnswer(0)));

    expect(await deliverAt(h().deps, p, 'meta', soon())).toMatchObject({ sent: 0, retry: true });

    expect(await deliveryRows(h().deps, p)).toMatchObject([
      { status: 'pending', attempts: 1, last_error: 'HTTP 200: events_received 0, expected 1' },
    ]);
  });

  it('when Meta sends 200 at once but keeps the body open past 1.5 s, then the batch is retried (its body is the acceptance)', async () => {
    const { p } = await queuedOne('meta');
    answers.push(heldOpen(200, '{"events_received":1'));

    expect(await deliverAt(h().deps, p, 'meta', soon())).toMatchObject({ sent: 0, retry: true });

    expect(await deliveryRows(h().deps, p)).toMatchObject([
      { status: 'pending', attempts: 1, last_error: 'timeout: no complete answer within 1500 ms' },
    ]);
  });
});
