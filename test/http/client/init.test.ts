// POST /api/client/init (spec: 202 with the bare {processing_id, status, message, success} body; token
// in the body, 400 when it is missing or wrong; 25 requests/s per token). One installs row per
// (project, install id), upserted: a retried or concurrent init returns the same processing_id and
// creates nothing new; the first init records an `install` fact, later ones `app_open`; attribution
// is enqueued while undecided. Tolerance per real-clients.md §1/§8 and catalog §4c.
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { processingIdFor } from '../../../src/domain/identity/register-install.ts';
import {
  attribute,
  attributionFacts,
  campaignWithListings,
  flushFacts,
  init,
  installEvents,
  installRows,
  post,
} from '../../support/client.ts';
import { newProject, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

const ACCEPTED = { status: 'accepted', message: 'Install event accepted for processing', success: true };
const BAD_TOKEN = { msg: 'Invalid or missing project token.', status: 400 };
const BAD_INSTALL_ID = {
  msg: 'install_instance_id must be a non-empty string of at most 128 characters.',
  status: 400,
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('202', () => {
  it('when a new install inits, then 202 with the bare body, one pending installs row and an install fact', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = randomUUID();

    const res = await init(
      h(),
      p.token,
      {
        install_instance_id: iid,
        app_version: '2.0',
        package_version: '1.1.3',
        device_data: { gaid: 'ABCD-EF', system_version: '14', device_name: 'samsung SM-S911B', carrier: ['Jio'] },
      },
      '10.20.30.40',
    );

    expect(res.statusCode).toBe(202);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.json()).toEqual({ processing_id: processingIdFor(p.project.id, iid), ...ACCEPTED });
    const [row, ...more] = await installRows(deps, p);
    expect(more).toEqual([]);
    expect(row).toMatchObject({
      install_instance_id: iid,
      processing_id: processingIdFor(p.project.id, iid),
      platform: 'ANDROID',
      gaid: 'abcd-ef',
      ip: '10.20.30.40',
      os: 'Android',
      os_version: '14',
      device_model: 'samsung SM-S911B',
      app_version: '2.0',
      package_version: '1.1.3',
      device_data: { gaid: 'ABCD-EF', system_version: '14', device_name: 'samsung SM-S911B', carrier: ['Jio'] },
      attribution_status: 'pending',
      open_count: 1,
      init_link: null,
    });
    // install facts carry the install's attribution, so they reach ClickHouse once it is decided
    await attribute(h(), p, iid);
    await flushFacts(h());
    expect(await installEvents(deps, p)).toEqual([{ install_instance_id: iid, kind: 'install' }]);
  });

  it('when a new install inits, then attribution is enqueued once under a deterministic job id', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = randomUUID();
    const enqueue = vi.spyOn(deps.queue, 'enqueueOrHold');

    await init(h(), p.token, { install_instance_id: iid });

    expect(enqueue).toHaveBeenCalledTimes(1);
    expect(enqueue).toHaveBeenCalledWith(
      'attribution',
      { projectId: p.project.id, installInstanceId: iid },
      expect.stringMatching(new RegExp(`^attr-${p.project.id}-[A-Za-z0-9_-]{22}$`)),
    );
  });

  it('when the same install inits twice in a row, then the same processing_id, one row and install + app_open facts', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = randomUUID();

    const first = await init(h(), p.token, { install_instance_id: iid, app_version: '1.0' });
    const second = await init(h(), p.token, { install_instance_id: iid, app_version: '1.1' });

    expect(second.statusCode).toBe(202);
    expect(second.json()).toEqual(first.json());
    const rows = await installRows(deps, p);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ open_count: 2, app_version: '1.1' });
    // install facts carry the install's attribution, so they reach ClickHouse once it is decided
    await attribute(h(), p, iid);
    await flushFacts(h());
    expect((await installEvents(deps, p)).map((e) => e.kind).sort()).toEqual(['app_open', 'install']);
  });

  it('when the same install inits 20 times at once, then 1 row, 1 install fact, 19 app_opens and one decision', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = randomUUID();
    const enqueue = vi.spyOn(deps.queue, 'enqueueOrHold');

    const results = await Promise.all(
      Array.from({ length: 20 }, () => init(h(), p.token, { install_instance_id: iid })),
    );

    expect(results.map((r) => r.statusCode)).toEqual(Array(20).fill(202));
    expect(new Set(results.map((r) => r.json().processing_id))).toEqual(new Set([processingIdFor(p.project.id, iid)]));
    const rows = await installRows(deps, p);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.open_count).toBe(20);
    expect(new Set(enqueue.mock.calls.map((c) => c[2])).size).toBe(1);
    const decisions = await Promise.all([attribute(h(), p, iid), attribute(h(), p, iid)]);
    expect(decisions.filter((d) => d !== undefined)).toHaveLength(1);
    expect(await attribute(h(), p, iid)).toBeUndefined();
    await flushFacts(h());
    const kinds = (await installEvents(deps, p)).map((e) => e.kind);
    expect(kinds.filter((k) => k === 'install')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'app_open')).toHaveLength(19);
    expect(await attributionFacts(deps, p)).toEqual([
      {
        install_instance_id: iid,
        kind: 'install',
        method: 'organic',
        attribution_type: 'ORGANIC',
        campaign_id: 0,
        display_id: '',
        click_id: '',
      },
    ]);
  });

  it('when a decided install opens the app again, then an app_open is recorded and nothing is enqueued', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = randomUUID();
    await init(h(), p.token, { install_instance_id: iid });
    await attribute(h(), p, iid);
    const enqueue = vi.spyOn(deps.queue, 'enqueueOrHold');

    const res = await init(h(), p.token, { install_instance_id: iid });

    expect(res.statusCode).toBe(202);
    expect(enqueue).not.toHaveBeenCalled();
    expect((await installRows(deps, p))[0]).toMatchObject({ attribution_status: 'decided', open_count: 2 });
  });

  it('when the same UUID arrives in upper and lower case, then it is one install stored in lower case', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const iid = randomUUID();

    const upper = await init(h(), p.token, { install_instance_id: iid.toUpperCase() });
    const lower = await init(h(), p.token, { install_instance_id: iid });

    expect(upper.json()).toEqual(lower.json());
    expect((await installRows(deps, p)).map((r) => [r.install_instance_id, r.open_count])).toEqual([[iid, 2]]);
  });

  it('when iOS sends its 20-character id (not a UUID), then it is accepted and kept exactly as sent', async () => {
    const { deps } = h();
    const p = await newProject(deps);

    const res = await init(h(), p.token, { platform: 'IOS', install_instance_id: 'aB3dE5fG7hJ9kL1mN2pQ' });

    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ processing_id: processingIdFor(p.project.id, 'aB3dE5fG7hJ9kL1mN2pQ'), ...ACCEPTED });
    expect((await installRows(deps, p)).map((r) => r.install_instance_id)).toEqual(['aB3dE5fG7hJ9kL1mN2pQ']);
  });

  it.each([
    ['ios', 'IOS'],
    ['WEB', 'WEB'],
    ['REACT_NATIVE', 'REACT_NATIVE'],
    [undefined, ''],
    [null, ''],
  ])('when platform is %j, then 202 and the install is stored with platform %j', async (platform, stored) => {
    const { deps } = h();
    const p = await newProject(deps);

    const res = await init(h(), p.token, { platform });

    expect(res.statusCode).toBe(202);
    expect((await installRows(deps, p)).map((r) => r.platform)).toEqual([stored]);
  });

  it('when link is a javascript: URL, then it is ignored', async () => {
    const { deps } = h();
    const p = await newProject(deps);

    const res = await init(h(), p.token, { link: 'javascript:alert(document.cookie)' });

    expect(res.statusCode).toBe(202);
    expect((await installRows(deps, p))[0]?.init_link).toBeNull();
  });

  it('when link is one of the project campaign links, then it is stored and attributes the install by link', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const campaign = await campaignWithListings(deps, p);
    const iid = randomUUID();
    const link = `https://attr.test/${campaign.displayId}`;

    await init(h(), p.token, { install_instance_id: iid, link });
    const decision = await attribute(h(), p, iid);

    expect((await installRows(deps, p))[0]?.init_link).toBe(link);
    expect(decision).toMatchObject({ method: 'link', campaignId: campaign.id, attributionType: 'INORGANIC' });
  });

  it('when a repeated init of a pending install carries a campaign link after one that named no campaign, then the campaign link attributes it', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const campaign = await campaignWithListings(deps, p);
    const other = await campaignWithListings(deps, p);
    const iid = randomUUID();
    const link = `https://attr.test/${campaign.displayId}`;

    await init(h(), p.token, { install_instance_id: iid, link: 'https://shop.example.com/product/42' });
    await init(h(), p.token, { install_instance_id: iid, link });
    // A campaign link, once stored, is kept: a third init with another campaign's link changes nothing.
    await init(h(), p.token, { install_instance_id: iid, link: `https://attr.test/${other.displayId}` });
    const decision = await attribute(h(), p, iid);

    expect((await installRows(deps, p))[0]?.init_link).toBe(link);
    expect(decision).toMatchObject({ method: 'link', campaignId: campaign.id, attributionType: 'INORGANIC' });
  });

  it.each([
    ['a string', 'not-an-object'],
    ['null', null],
    ['an array', [1, 2]],
  ])('when device_data is %s, then 202 and it is stored as an empty object', async (_case, deviceData) => {
    const { deps } = h();
    const p = await newProject(deps);

    const res = await init(h(), p.token, { device_data: deviceData });

    expect(res.statusCode).toBe(202);
    expect((await installRows(deps, p))[0]?.device_data).toEqual({});
  });

  it('when device_data nests 50 levels deep, then 202 and it is stored capped at 10 levels', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    let deep: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 50; i++) {
      deep = { a: deep };
    }

    const res = await init(h(), p.token, { device_data: deep });

    expect(res.statusCode).toBe(202);
    let stored = (await installRows(deps, p))[0]?.device_data as Record<string, unknown> | null;
    let depth = 0;
    while (stored && typeof stored === 'object') {
      stored = stored.a as Record<string, unknown> | null;
      depth += 1;
    }
    expect(depth).toBe(10);
  });

  it('when device_data has 5,000 keys, then 202 and the first 300 are stored', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const many = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i]));

    const res = await init(h(), p.token, { device_data: many });

    expect(res.statusCode).toBe(202);
    const stored = (await installRows(deps, p))[0]?.device_data as Record<string, number>;
    expect(Object.keys(stored)).toHaveLength(300);
    expect(stored.k299).toBe(299);
  });

  it('when strings carry NUL or lone surrogates, then 202 (never 500) and they are stored cleaned', async () => {
    const { deps } = h();
    const p = await newProject(deps);

    const res = await init(h(), p.token, {
      install_instance_id: 'ios\u0000id\ud800',
      app_version: '2.\u00000',
      device_data: { 'k\u0000': 'v\u0000', lone: 'x\udc00y', gaid: 'AB\u0000CD' },
    });

    expect(res.statusCode).toBe(202);
    expect(await installRows(deps, p)).toMatchObject([
      {
        install_instance_id: 'iosid\ufffd',
        app_version: '2.0',
        gaid: 'abcd',
        device_data: { k: 'v', lone: 'x\ufffdy', gaid: 'ABCD' },
      },
    ]);
    // install facts carry the install's attribution, so they reach ClickHouse once it is decided
    await attribute(h(), p, 'iosid\ufffd');
    await flushFacts(h());
    expect(await installEvents(deps, p)).toEqual([{ install_instance_id: 'iosid\ufffd', kind: 'install' }]);
  });

  it('when the body has extra fields the spec never lists (source, debug), then they are ignored', async () => {
    const { deps } = h();
    const p = await newProject(deps);

    const res = await init(h(), p.token, { source: 'GENERAL', debug: true, unknown_field: { x: 1 } });

    expect(res.statusCode).toBe(202);
    expect(await installRows(deps, p)).toHaveLength(1);
  });
});

describe('400', () => {
  it.each([
    ['missing', {}],
    ['empty', { token: '' }],
    ['unknown', { token: 'pt_not-a-real-token' }],
    ['a number', { token: 12345 }],
    ['carrying NUL', { token: 'pt_\u0000' }],
    ['over 256 characters', { token: 'x'.repeat(257) }],
  ])('when the token is %s, then 400 with the client token text', async (_case, body) => {
    const res = await post(h(), 'init', { install_instance_id: randomUUID(), ...body });

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(BAD_TOKEN);
  });

  it('when the token comes in the query string or a header instead of the body, then 400', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const body = { platform: 'ANDROID', install_instance_id: randomUUID() };

    const inQuery = await h().app.inject({ method: 'POST', url: `/api/client/init?token=${p.token}`, payload: body });
    const inHeader = await post(h(), 'init', body, { headers: { token: p.token, authorization: `Bearer ${p.token}` } });

    expect([inQuery.statusCode, inHeader.statusCode]).toEqual([400, 400]);
    expect(inQuery.json()).toEqual(BAD_TOKEN);
    expect(inHeader.json()).toEqual(BAD_TOKEN);
    expect(await installRows(deps, p)).toEqual([]);
  });

  it('when the server key is sent as the token, then 400 and no install is created', async () => {
    const { deps } = h();
    const p = await newProject(deps);

    const res = await init(h(), p.serverKey);

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(BAD_TOKEN);
    expect(await installRows(deps, p)).toEqual([]);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['blank', '   '],
    ['a number', 42],
    ['129 characters', 'a'.repeat(129)],
    ['only NUL', '\u0000'],
  ])('when install_instance_id is %s, then 400 with its text', async (_case, iid) => {
    const { deps } = h();
    const p = await newProject(deps);

    const res = await post(h(), 'init', { token: p.token, platform: 'ANDROID', install_instance_id: iid });

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(BAD_INSTALL_ID);
    expect(await installRows(deps, p)).toEqual([]);
  });

  it('when app_version is an object, then 400 app_version must be a string.', async () => {
    const { deps } = h();
    const p = await newProject(deps);

    const res = await init(h(), p.token, { app_version: { name: '2.0' } });

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ msg: 'app_version must be a string.', status: 400 });
  });

  it.each([
    ['truncated JSON', '{"token":', { msg: 'Invalid JSON body.', status: 400 }],
    ['a __proto__ key', '{"__proto__":{"x":1}}', { msg: 'Invalid JSON body.', status: 400 }],
    ['a top-level array', '[]', BAD_TOKEN],
    ['top-level null', 'null', BAD_TOKEN],
    ['an empty body', '', BAD_TOKEN],
  ])('when the body is %s, then 400 with a JSON envelope', async (_case, body, expected) => {
    const res = await post(h(), 'init', body, { headers: { 'content-type': 'application/json' } });

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(expected);
  });
});

describe('413 and 415', () => {
  it('when device_data has 10,000 keys (over the 64 KiB client cap), then 413 Request body too large.', async () => {
    const { deps } = h();
    const p = await newProject(deps);
    const many = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i]));

    const res = await init(h(), p.token, { device_data: many });

    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ msg: 'Request body too large.', status: 413 });
    expect(await installRows(deps, p)).toEqual([]);
  });

  it('when the body is text/plain, then 415 with a JSON envelope', async () => {
    const res = await post(h(), 'init', 'token=x', { headers: { 'content-type': 'text/plain' } });

    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ msg: 'Unsupported content type. Send application/json.', status: 415 });
  });
});

describe('tenant isolation', () => {
  it("when project B inits A's install id, then B gets its own install and A's row is untouched", async () => {
    const { deps } = h();
    const a = await newProject(deps);
    const b = await newProject(deps);
    const iid = randomUUID();
    await init(h(), a.token, { install_instance_id: iid });

    const res = await init(h(), b.token, { install_instance_id: iid });

    expect(res.json()).toEqual({ processing_id: processingIdFor(b.project.id, iid), ...ACCEPTED });
    expect(processingIdFor(b.project.id, iid)).not.toBe(processingIdFor(a.project.id, iid));
    expect((await installRows(deps, a)).map((r) => r.open_count)).toEqual([1]);
    expect((await installRows(deps, b)).map((r) => r.open_count)).toEqual([1]);
  });
});

describe('429', () => {
  // Its own harness with limits on. The limit is a fixed one-second window on the wall clock, so the
  // burst starts right after a second boundary; one the machine could not finish inside its window is
  // re-run on fresh projects (a window edge, not a limiter bug, would split the counts).
  const limited = useHarness({ env: { RATE_LIMITS_ENABLED: 'true' } });
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('when one token sends 26 requests in one second, then 25 pass and 1 gets 429, and another token is unaffected', async () => {
    const { deps } = limited();
    let results: LightMyRequestResponse[] = [];
    let other: LightMyRequestResponse | undefined;
    for (let attempt = 1; attempt <= 3; attempt++) {
      const p = await newProject(deps);
      const q = await newProject(deps);
      while (Date.now() % 1000 >= 50) {
        await sleep(1000 - (Date.now() % 1000));
      }
      const window = Math.floor(Date.now() / 1000);
      [other, ...results] = await Promise.all([
        init(limited(), q.token),
        ...Array.from({ length: 26 }, () => init(limited(), p.token)),
      ]);
      if (Math.floor(Date.now() / 1000) === window) {
        break;
      }
    }

    expect(results.filter((r) => r.statusCode === 202)).toHaveLength(25);
    const refused = results.filter((r) => r.statusCode === 429);
    expect(refused).toHaveLength(1);
    expect(refused[0]?.json()).toEqual({ msg: 'Rate limit exceeded. Please try again later.', status: 429 });
    expect(other?.statusCode).toBe(202);
  });
});
