// Catalog §4d D8 and I7: personal data and secrets stay where they belong. What reaches Meta (the
// fake Conversions API) carries em/ph/external_id only as sha256 of the normalised value (already
// hashed input passes unchanged, malformed input is left out), the IP and user agent unhashed, and
// no raw address, phone digits or user id; the stored delivery payloads likewise. BullMQ job data in
// Redis holds no email, phone, key or token (needs TEST_REDIS_URL). Logs at trace level of requests
// carrying a server key, a project token, a Meta access token, emails and phones hold none of them.
import { createHash, randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { jobHandlers } from '../../jobs/worker.ts';
import { buildApp } from '../../src/app.ts';
import { enqueueDueDeliveries } from '../../src/domain/deliveries/enqueue-due-deliveries.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { post, processRedisUrl } from '../support/client.ts';
import {
  ACCESS_TOKEN,
  CART,
  connectMeta,
  deliverAt,
  deliveryEnv,
  deliveryRows,
  registeredUser,
} from '../support/deliveries.ts';
import { FakeCapi } from '../support/fake-capi.ts';
import {
  closeHarness,
  type Harness,
  makeHarness,
  newProject,
  type TestProject,
  useHarness,
} from '../support/harness.ts';
import { figure, Tally } from '../support/security-routes.ts';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const HEX64 = /^[a-f0-9]{64}$/;

const fake = new FakeCapi();
const env = deliveryEnv();
beforeAll(async () => {
  env.META_GRAPH_BASE_URL = await fake.start();
});
afterAll(() => fake.stop());

type Person = { userId: string; email: string; phone: string; em?: string; ph?: string; raw: string[] };

/** Three users: plain contact data, already-hashed contact data, and malformed contact data. */
function people(tag: string): Person[] {
  const hashedEmail = sha(`hashed-${tag}@example.org`);
  return [
    {
      userId: `pii-plain-${tag}`,
      email: ` Foo.${tag}@Bar.com `,
      phone: '+44 (0)20 7946 0958',
      em: sha(`foo.${tag}@bar.com`),
      ph: sha('4402079460958'),
      raw: [`foo.${tag}`, '79460958', `pii-plain-${tag}`],
    },
    {
      userId: `pii-hashed-${tag}`,
      email: hashedEmail.toUpperCase(),
      phone: '(555) 010-9999',
      em: hashedEmail,
      ph: sha('5550109999'),
      raw: ['0109999', `pii-hashed-${tag}`],
    },
    {
      userId: `pii-bad-${tag}`,
      email: `not-an-email-${tag}`,
      phone: '12',
      raw: [`not-an-email-${tag}`, `pii-bad-${tag}`],
    },
  ];
}

/** Registers each person on its own install and captures one mapped event and one mapped payment. */
async function capture(h: Harness, p: TestProject, persons: Person[]): Promise<string[]> {
  const iids: string[] = [];
  for (const u of persons) {
    const iid = await registeredUser(h, p, u);
    iids.push(iid);
    const base = { token: p.token, platform: 'ANDROID', install_instance_id: iid };
    const ev = await post(h, 'capture-event', {
      ...base,
      event_name: 'add_to_cart',
      event_data: CART,
      event_id: randomUUID(),
    });
    const pay = await post(h, 'capture-payment', {
      ...base,
      amount: 49.99,
      type: 'FIRST_PAYMENT',
      payment_id: randomUUID(),
      event_data: CART,
    });
    if (ev.statusCode >= 300 || pay.statusCode >= 300) {
      throw new Error(`capture answered ${ev.statusCode}/${pay.statusCode}: ${ev.body} ${pay.body}`);
    }
  }
  return iids;
}

describe('D8 Meta payloads', () => {
  const h = useHarness({ env });

  it('when users with plain, pre-hashed and malformed contact data buy, then Meta gets only sha256 values and no raw PII', async () => {
    const p = await newProject(h().deps);
    await connectMeta(h().deps, p);
    const persons = people(randomUUID().slice(0, 8));
    await capture(h(), p, persons);

    const out = await deliverAt(h().deps, p, 'meta');

    const sent = fake.requests.filter((r) => r.status === 200 && r.body.access_token === ACCESS_TOKEN);
    const events = sent.flatMap((r) => r.body.data as { user_data: Record<string, unknown> }[]);
    const tally = new Tally();
    for (const e of events) {
      const u = e.user_data;
      for (const k of ['em', 'ph', 'external_id']) {
        const v = u[k];
        tally.check(
          v === undefined || (Array.isArray(v) && v.every((x) => HEX64.test(String(x)))),
          `${k} not hashed: ${String(v)}`,
        );
      }
      tally.check(
        typeof u.client_ip_address === 'string' && !HEX64.test(String(u.client_ip_address)),
        'ip hashed or missing',
      );
      tally.check(
        typeof u.client_user_agent === 'string' && String(u.client_user_agent).includes('Android'),
        'ua hashed or missing',
      );
      const person = persons.find((x) => JSON.stringify(u.external_id) === JSON.stringify([sha(x.userId)]));
      tally.check(person !== undefined, `external_id is not sha256(user id): ${String(u.external_id)}`);
      if (person) {
        tally.check(
          JSON.stringify(u.em) === JSON.stringify(person.em ? [person.em] : undefined),
          `em of ${person.userId}`,
        );
        tally.check(
          JSON.stringify(u.ph) === JSON.stringify(person.ph ? [person.ph] : undefined),
          `ph of ${person.userId}`,
        );
      }
    }
    const wire = JSON.stringify(sent.map((r) => r.body));
    const stored = JSON.stringify((await deliveryRows(h().deps, p)).map((r) => r.payload));
    for (const raw of persons.flatMap((x) => x.raw)) {
      tally.check(!wire.includes(raw), `raw ${raw} sent to Meta`);
      tally.check(!stored.includes(raw), `raw ${raw} in stored delivery payloads`);
    }
    tally.check(!wire.includes('@') && !stored.includes('@'), "raw '@' sent or stored");
    figure('D8 Meta payloads', { events: events.length, probes: tally.probes, raw_pii_leaked: tally.bad });

    expect(out.sent).toBe(6);
    expect(events).toHaveLength(6);
    expect(tally.failures).toEqual([]);
  });
});

/** Every value under bull:* in this process's Redis db, as one string per key. */
async function bullDump(h: Harness): Promise<string[]> {
  const redis = h.deps.redis;
  if (!redis) {
    return [];
  }
  const out: string[] = [];
  for (const key of await redis.keys('bull:*')) {
    const type = await redis.type(key);
    if (type === 'hash') {
      out.push(JSON.stringify(await redis.hgetall(key)));
    } else if (type === 'string') {
      out.push(String(await redis.get(key)));
    } else if (type === 'list') {
      out.push(JSON.stringify(await redis.lrange(key, 0, -1)));
    } else if (type === 'zset') {
      out.push(JSON.stringify(await redis.zrange(key, 0, -1)));
    } else if (type === 'stream') {
      out.push(JSON.stringify(await redis.xrange(key, '-', '+')));
    }
  }
  return out;
}

describe('D8 BullMQ job data (needs TEST_REDIS_URL: skipped without it)', () => {
  it.skipIf(!inject('redisUrl'))(
    'when installs, signups, events and deliveries go through BullMQ, then no job in Redis holds PII, a key or a token',
    async () => {
      // This process's own Redis db (processRedisUrl): its queues hold only this process's jobs.
      const h = await makeHarness({ env: { ...env, REDIS_URL: processRedisUrl() ?? '' } });
      try {
        expect(h.deps.queue.kind).toBe('bullmq');
        const p = await newProject(h.deps);
        await connectMeta(h.deps, p);
        const persons = people(randomUUID().slice(0, 8));
        await capture(h, p, persons);
        await enqueueDueDeliveries(h.deps, Date.now());
        const queued = await bullDump(h);
        // Drain what was queued (so nothing of ours waits in Redis), then look again at the kept jobs.
        await h.deps.queue.startWorkers(jobHandlers(h.deps));
        for (let i = 0; i < 100 && (await deliveryRows(h.deps, p)).some((r) => r.status !== 'sent'); i += 1) {
          await new Promise((r) => setTimeout(r, 100));
        }
        const done = await bullDump(h);
        const secrets = [
          ...persons.flatMap((x) => x.raw),
          ...persons.map((x) => x.email.trim()),
          p.serverKey.slice(3),
          p.token,
          ACCESS_TOKEN,
        ];
        const tally = new Tally();
        for (const [when, dump] of [
          ['queued', queued],
          ['done', done],
        ] as const) {
          const text = dump.join('\n');
          for (const s of secrets) {
            tally.check(!text.includes(s), `${when}: ${s} in job data`);
          }
        }
        figure('D8 BullMQ', {
          redis_values: queued.length + done.length,
          probes: tally.probes,
          raw_pii_in_jobs: tally.bad,
        });

        expect(queued.join('\n')).toContain(p.project.id);
        expect(tally.failures).toEqual([]);
      } finally {
        await closeHarness(h);
      }
    },
    60_000,
  );
});

describe('D8 logs', () => {
  const h = useHarness({ env });

  it('when requests carry a server key, a token, a Meta token, emails and phones, then no log line holds any of them', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    let out = '';
    const log = createLogger(
      'trace',
      new Writable({
        write(chunk, _enc, done) {
          out += String(chunk);
          done();
        },
      }),
    );
    const app = await buildApp({ ...deps, log });
    const email = `log.${randomUUID().slice(0, 8)}@example.org`;
    const phone = '+49 151 98765432';
    const metaToken = `EAAGlogs${randomUUID().replaceAll('-', '')}`;
    const iid = randomUUID();
    const client = (path: string, body: Record<string, unknown>) =>
      app.inject({
        method: 'POST',
        url: `/api/client/${path}`,
        payload: { token: p.token, platform: 'ANDROID', install_instance_id: iid, ...body },
      });
    try {
      await app.inject({ method: 'GET', url: '/api/v1/campaigns', headers: p.headers });
      await app.inject({ method: 'GET', url: `/api/v1/campaigns?service-key=${p.serverKey}&token=${p.token}` });
      await app.inject({ method: 'GET', url: '/api/v1/campaigns', headers: { 'linkrunner-key': p.serverKey } });
      await app.inject({
        method: 'GET',
        url: '/api/v1/campaigns',
        headers: { authorization: `Bearer ${p.serverKey}` },
      });
      await app.inject({
        method: 'PUT',
        url: '/api/v1/connections/meta',
        headers: p.headers,
        payload: { dataset_id: '123', access_token: metaToken, active: false },
      });
      await app.inject({
        method: 'PUT',
        url: '/api/v1/connections/meta',
        headers: p.headers,
        payload: { dataset_id: 'not a dataset', access_token: metaToken, active: 'yes' },
      });
      await client('init', { device_data: {} });
      await client('trigger', { user_data: { id: 'log-user', email, phone }, data: { device_data: {} } });
      await client('set-user-data', { user_data: { id: 'log-user', email, phone } });
      await client('trigger', { user_data: { id: 'log-user', email: 42, phone: { x: phone } } });
      await client('capture-event', { event_name: 'x', event_data: { email, phone } });
      await app.inject({
        method: 'POST',
        url: '/api/client/init',
        headers: { 'content-type': 'application/json' },
        payload: `{"token":"${p.token}","user_data":{"email":"${email}"`,
      });
      await app.inject({ method: 'POST', url: '/api/client/init', payload: { token: p.serverKey } });
      await app.inject({
        method: 'POST',
        url: '/api/v1/capture-event',
        headers: p.headers,
        payload: { user_id: 'log-user', event_name: 'x', event_data: { email, phone } },
      });
    } finally {
      await app.close();
    }
    const secrets: Record<string, string> = {
      'server key': p.serverKey.slice(3),
      'project token': p.token.slice(3),
      'meta token': metaToken,
      email,
      'email local part': email.split('@')[0] ?? email,
      phone: '98765432',
    };
    const hits = Object.entries(secrets)
      .filter(([, s]) => out.includes(s))
      .map(([what]) => what);
    figure('D8 logs', { log_bytes: out.length, secrets: Object.keys(secrets).length, secrets_in_logs: hits.length });

    expect(out).toContain('incoming request');
    expect(hits).toEqual([]);
  });
});
