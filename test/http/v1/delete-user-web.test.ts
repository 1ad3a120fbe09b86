// DELETE /api/v1/users/{user_id} and the Web SDK's events still waiting in the fact outbox (README
// "Web SDK", "User deletion": the user's web events and the anonymous ones of the browsers it was
// identified on go). A web event waits in the outbox until the fact writer drains it (a second in
// normal running, hours while ClickHouse is away): an anonymous event still there must not land
// after the deletion, an identify still there must still name its browser, a user known only from
// the web is found, and a re-run after a failure still knows the browsers an identify named.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { flushFacts, type Res } from '../../support/client.ts';
import { registeredUser } from '../../support/commerce.ts';
import { chJson, newProject, type TestProject, useHarness, withAppOver } from '../../support/harness.ts';
import { postWeb, sdkPageView, stored } from '../../support/web.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

function del(userId: string, p: TestProject): Promise<Res> {
  return h().app.inject({
    method: 'DELETE',
    url: `/api/v1/users/${encodeURIComponent(userId)}`,
    headers: p.headers,
  }) as Promise<Res>;
}

async function send(body: Record<string, unknown>): Promise<void> {
  expect((await postWeb(h(), body)).json()).toEqual(stored);
}

/** The project's web_events in ClickHouse, as `visitor:user`. */
async function webUsers(p: TestProject): Promise<string[]> {
  const rows = await chJson<{ v: string; u: string }>(
    h().deps.ch,
    `SELECT visitor_id AS v, user_id AS u FROM web_events WHERE project_id = {p:String} ORDER BY v, u`,
    { p: p.project.id },
  );
  return rows.map((r) => `${r.v}:${r.u}`);
}

/** The project's web_events rows waiting in the outbox or dead-lettered. */
async function waitingWebRows(p: TestProject): Promise<number> {
  const [r] = await h().deps.sql<{ n: number }[]>`
    SELECT (SELECT count(*) FROM fact_outbox WHERE project_id = ${p.project.id} AND fact_table = 'web_events')::int
      + (SELECT count(*) FROM fact_dead_letters WHERE project_id = ${p.project.id} AND fact_table = 'web_events')::int
      AS n`;
  return r?.n ?? 0;
}

describe('200', () => {
  it("when the browser's anonymous event still waits in the outbox, then it does not land after the user is deleted", async () => {
    const { p } = await registeredUser(h(), 'web-gdpr-1');
    const browser = randomUUID();
    await send(sdkPageView(p.token, { visitor_id: browser, event_type: 'identify', user_id: 'web-gdpr-1' }));
    await flushFacts(h());
    // A page view of that browser from before lr.identify (client time earlier), still in the outbox.
    await send(
      sdkPageView(p.token, { visitor_id: browser, user_id: '', client_timestamp: '2026-11-28T09:00:00.000Z' }),
    );

    const res = await del('web-gdpr-1', p);
    await flushFacts(h());

    expect(res.statusCode).toBe(200);
    expect(await waitingWebRows(p)).toBe(0);
    expect(await webUsers(p)).toEqual([]);
  });

  it("when the user's identify still waits in the outbox, then the browser's anonymous events already stored go too", async () => {
    const { p } = await registeredUser(h(), 'web-gdpr-2');
    const browser = randomUUID();
    const other = randomUUID();
    await send(sdkPageView(p.token, { visitor_id: browser, user_id: '' }));
    await send(sdkPageView(p.token, { visitor_id: other, user_id: '' })); // a browser never identified
    await flushFacts(h());
    await send(sdkPageView(p.token, { visitor_id: browser, event_type: 'identify', user_id: 'web-gdpr-2' }));

    const res = await del('web-gdpr-2', p);
    await flushFacts(h());

    expect(res.statusCode).toBe(200);
    expect(res.json().data.removed.clickhouse.web_events).toBe(1);
    expect(await webUsers(p)).toEqual([`${other}:`]);
  });

  it('when a user known only from the web has its events in the outbox, then the deletion finds and removes them', async () => {
    const p = await newProject(h().deps);
    const browser = randomUUID();
    await send(sdkPageView(p.token, { visitor_id: browser, event_type: 'identify', user_id: 'web-gdpr-3' }));

    const res = await del('web-gdpr-3', p);
    await flushFacts(h());

    expect(res.statusCode).toBe(200);
    expect(await waitingWebRows(p)).toBe(0);
    expect(await webUsers(p)).toEqual([]);
  });

  it('when lr.identify got the id with spaces around it, then deleting the (trimmed) user removes those web events', async () => {
    // The app SDKs' user ids are read trimmed; the page's identify(' web-gdpr-4 ') is the same person.
    const { p } = await registeredUser(h(), 'web-gdpr-4');
    const browser = randomUUID();
    await send(sdkPageView(p.token, { visitor_id: browser, event_type: 'identify', user_id: ' web-gdpr-4 ' }));
    await flushFacts(h());

    const res = await del('web-gdpr-4', p);

    expect(res.statusCode).toBe(200);
    expect(await webUsers(p)).toEqual([]);
  });
});

describe('a deletion cut after its Postgres step', () => {
  it('when the identify was only in the outbox and ClickHouse fails once, then a retry still deletes the browser’s anonymous events', async () => {
    // The Postgres step deletes the identify from the outbox: afterwards nothing but user_deletions
    // says which browser the user was on.
    const { deps } = h();
    const p = await newProject(deps);
    const browser = randomUUID();
    await send(sdkPageView(p.token, { visitor_id: browser, user_id: '' }));
    await flushFacts(h());
    await send(sdkPageView(p.token, { visitor_id: browser, event_type: 'identify', user_id: 'web-gdpr-5' }));
    let cuts = 0;
    const cut = new Proxy(deps.ch, {
      get(target, key, receiver) {
        if (key !== 'command') {
          return Reflect.get(target, key, receiver);
        }
        return (arg: Parameters<typeof target.command>[0]) => {
          if (cuts === 0 && /^ALTER TABLE \S+ DELETE/.test(arg.query)) {
            cuts++;
            return Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:8123'));
          }
          return target.command(arg);
        };
      },
    });

    const first = await withAppOver(h(), { ch: cut }, (app) =>
      app.inject({ method: 'DELETE', url: '/api/v1/users/web-gdpr-5', headers: p.headers }),
    );
    expect(cuts).toBe(1);
    expect(first.statusCode).toBeGreaterThanOrEqual(500);
    expect(await waitingWebRows(p)).toBe(0);
    expect(await webUsers(p)).toEqual([`${browser}:`]);

    const retry = await del('web-gdpr-5', p);

    expect(retry.statusCode).toBe(200);
    expect(await webUsers(p)).toEqual([]);
    const [kept] = await deps.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM user_deletions WHERE project_id = ${p.project.id}`;
    expect(kept?.n).toBe(0);
  });
});
