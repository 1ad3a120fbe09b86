// POST /web/ingest exactly once (README "Web SDK"): the SDK may send one event again (its fetch,
// then a beacon or XHR; a first-party host's failure retried on our default host), so a repeated
// event_id answers 200 "already captured" and stores nothing more, even when the copies race.
// The id is unique per project only: two projects' events with one id are both kept, each in its
// own project. Web ids are claimed apart from capture-event's (seen_web_event_ids), so neither
// shadows the other, not even an app id spelled `web:<web id>` (the public token must not be able
// to claim an app's ids).
import { describe, expect, it } from 'vitest';
import { flushFacts, post, useClientHarness } from '../../support/client.ts';
import { outboxCount, registeredUser } from '../../support/commerce.ts';
import { newProject } from '../../support/harness.ts';
import {
  duplicate,
  postWeb,
  sdkCustomEvent,
  sdkPageView,
  stored,
  TRANSPORT_HEADERS,
  webRows,
} from '../../support/web.ts';

const h = useClientHarness();

describe('200 duplicate', () => {
  it('when one event comes by fetch, then beacon, then XHR, then it is stored once and the repeats say so', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const body = sdkPageView(p.token);

    const answers = [];
    for (const headers of [TRANSPORT_HEADERS.fetch, TRANSPORT_HEADERS.beacon, TRANSPORT_HEADERS.xhr]) {
      answers.push(await postWeb(h(), body, { headers }));
    }

    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(answers.map((r) => r.json())).toEqual([stored, duplicate, duplicate]);
    expect(await outboxCount(deps, p, 'web_events')).toBe(1);
    await flushFacts(h());
    expect((await webRows(deps, p)).map((r) => r.event_id)).toEqual([body.event_id]);
  });

  it('when twelve copies of one event race, then exactly one is stored', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const body = sdkCustomEvent(p.token, 'signup', { plan: 'pro' });

    const answers = await Promise.all(Array.from({ length: 12 }, () => postWeb(h(), body)));

    expect(answers.map((r) => r.statusCode)).toEqual(Array(12).fill(200));
    expect(answers.filter((r) => r.json().msg === stored.msg)).toHaveLength(1);
    await flushFacts(h());
    expect(await webRows(deps, p)).toHaveLength(1);
  });

  it('when an event is sent again after the writer stored it, then it is still not stored twice', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const body = sdkPageView(p.token);
    expect((await postWeb(h(), body)).json()).toEqual(stored);
    await flushFacts(h());

    const res = await postWeb(h(), body, { path: '/web/collect' });

    expect(res.json()).toEqual(duplicate);
    await flushFacts(h());
    expect(await webRows(deps, p)).toHaveLength(1);
  });
});

describe('isolation', () => {
  it('when two projects send events with the same event_id, then each project holds its own one row', async () => {
    const { deps } = h();
    const a = await newProject(deps);
    const b = await newProject(deps);
    const eventId = crypto.randomUUID();

    const resA = await postWeb(h(), sdkPageView(a.token, { event_id: eventId, page_path: '/a' }));
    const resB = await postWeb(h(), sdkPageView(b.token, { event_id: eventId, page_path: '/b' }));

    expect([resA.json(), resB.json()]).toEqual([stored, stored]);
    await flushFacts(h());
    expect((await webRows(deps, a)).map((r) => [r.event_id, r.page_path])).toEqual([[eventId, '/a']]);
    expect((await webRows(deps, b)).map((r) => [r.event_id, r.page_path])).toEqual([[eventId, '/b']]);
  });

  it("when an app's capture-event used an event_id, then a web event with that id is still stored", async () => {
    const { deps } = h();
    const { p, iid } = await registeredUser(h(), 'user-web');
    const eventId = crypto.randomUUID();
    const app = await post(h(), 'capture-event', {
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: iid,
      event_name: 'purchase',
      event_id: eventId,
    });
    expect(app.json().msg).toBe('Event captured successfully');

    const res = await postWeb(h(), sdkPageView(p.token, { event_id: eventId }));

    expect(res.json()).toEqual(stored);
    await flushFacts(h());
    expect((await webRows(deps, p)).map((r) => r.event_id)).toEqual([eventId]);
  });
  it('when an app event used the id "web:<uuid>", then a web event with id <uuid> is still stored', async () => {
    const { deps } = h();
    const { p, iid } = await registeredUser(h(), 'user-web-ns');
    const webId = crypto.randomUUID();
    const app = await post(h(), 'capture-event', {
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: iid,
      event_name: 'web_checkout',
      event_id: `web:${webId}`,
    });
    expect(app.json().msg).toBe('Event captured successfully');

    const res = await postWeb(h(), sdkPageView(p.token, { event_id: webId }));

    expect(res.json()).toEqual(stored);
    await flushFacts(h());
    expect((await webRows(deps, p)).map((r) => r.event_id)).toEqual([webId]);
  });

  it('when a web event with id X came first, then an app event with id "web:X" is still stored', async () => {
    const { deps } = h();
    const { p, iid } = await registeredUser(h(), 'user-web-ns2');
    const webId = crypto.randomUUID();
    expect((await postWeb(h(), sdkPageView(p.token, { event_id: webId }))).json()).toEqual(stored);

    const app = await post(h(), 'capture-event', {
      token: p.token,
      platform: 'ANDROID',
      install_instance_id: iid,
      event_name: 'web_checkout',
      event_id: `web:${webId}`,
    });

    expect(app.json().msg).toBe('Event captured successfully');
    expect(await outboxCount(deps, p, 'events')).toBe(1);
  });
});
