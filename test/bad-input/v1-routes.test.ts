// The catalog §4c per-route lists for /api/v1: list campaigns (page, limit, filter, channel,
// domain), attributed-users (dates, zones, DST), get-attribution-result, create / edit campaign
// (names, redirect URLs, custom ids, listings, mass assignment), and reporting (dates, limit,
// sort_field injection, LIKE wildcards in search, event lists, active_users). Every case goes
// through the oracle (documented status, no 5xx, under 1 s); where §4c fixes the answer, the
// status (and the spec text) is asserted too.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MSG } from '../../src/http/messages.ts';
import { check, expectAlive, property, type Res, Tally } from '../support/bad-input-kit.ts';
import {
  type Fixture,
  makeFixture,
  type Route,
  requestOf,
  useBadInputHarness,
  V1_ROUTES,
} from '../support/bad-input-routes.ts';
import { BAD_STRINGS, badQueryValue, MILLION, wellFormed } from '../support/bad-input-values.ts';
import * as f from '../support/factories.ts';
import { newProject } from '../support/harness.ts';

const h = useBadInputHarness();
const tally = new Tally('v1-routes.test.ts');
let x: Fixture;

beforeAll(async () => {
  x = await makeFixture(h());
});
afterAll(() => {
  console.log(tally.line());
});

const route = (name: string): Route => {
  const r = V1_ROUTES.find((v) => v.name === name);
  if (!r) {
    throw new Error(`no route ${name}`);
  }
  return r;
};
const LIST = route('GET /api/v1/campaigns');
const USERS = route('GET /api/v1/attributed-users');
const RESULT = route('GET /api/v1/get-attribution-result');
const CREATE = route('POST /api/v1/create-campaign');
const EDIT = route('PATCH /api/v1/campaigns/:display_id');
const REPORT = route('GET /api/v1/reporting/campaigns');

function get(r: Route, query: string, label = ''): Promise<Res> {
  return check(h().app, tally, { ...requestOf(r, x, { query }), label: `${r.name} ${label}` }, r.allowed);
}
function send(r: Route, body: unknown, params?: Record<string, string>): Promise<Res> {
  const req = requestOf(r, x, { body: JSON.stringify(body), params });
  return check(h().app, tally, { ...req, label: r.name }, r.allowed);
}
const q = (o: Record<string, string>): string => new URLSearchParams(o).toString();

describe('GET /api/v1/campaigns', () => {
  it.each(['0', '-1', '1.5', 'abc', '1e309', '1 OR 1=1', '', ' ', '0x10', '+1'])(
    'when page is %j, then 422',
    async (page) => {
      expect((await get(LIST, q({ page }))).statusCode).toBe(422);
    },
  );

  // Any positive integer is a page (spec); past the end it is an empty page, whatever its size.
  it.each([
    ['1000001', '1000001'],
    ['2^53 + 1', '9007199254740993'],
    ['20 digits', '99999999999999999999'],
    ['400 digits', '9'.repeat(400)],
  ])('when page is %s, then 200 with an empty page', async (_name, page) => {
    const res = await get(LIST, q({ page }));
    expect(res.statusCode).toBe(200);
    expect(res.json().data.campaigns).toEqual([]);
  });

  it('when page or limit is repeated, then 422', async () => {
    expect((await get(LIST, 'page=1&page=2')).statusCode).toBe(422);
    expect((await get(LIST, 'limit=1&limit=2')).statusCode).toBe(422);
  });

  it.each([
    ['0', 422],
    ['1001', 422],
    ['1000', 200],
    ['1', 200],
    ['-5', 422],
    ['abc', 422],
  ])('when limit is %s, then %i', async (limit, status) => {
    expect((await get(LIST, q({ limit }))).statusCode).toBe(status);
  });

  it('when filter is not ACTIVE, INACTIVE or ALL, then 400 with its text', async () => {
    for (const filter of ['DELETED', "' OR 1=1--", '__proto__', 'ALL ', 'a\u0000']) {
      const res = await get(LIST, q({ filter }));
      expect([200, 400]).toContain(res.statusCode);
    }
    const res = await get(LIST, q({ filter: 'DELETED' }));
    expect(res.json()).toEqual({ msg: MSG.invalidFilter('DELETED'), status: 400 });
  });

  it('when channel is odd, then 200 or 400; META in any case gives the same campaigns', async () => {
    for (const channel of ["'; DROP TABLE x;--", '%', '_', 'ünïcødé', '\u202e', 'a'.repeat(5000), ...BAD_STRINGS]) {
      await get(LIST, q({ channel: wellFormed(channel) }));
    }
    const ids = async (channel: string) =>
      ((await get(LIST, q({ channel }))).json().data.campaigns as { display_id: string }[]).map((c) => c.display_id);
    const upper = await ids('META');
    expect(await ids('meta')).toEqual(upper);
    expect(await ids('MeTa')).toEqual(upper);
  });

  it("when domain belongs to another project, then 400 Invalid domain '…' echoing the value as JSON text", async () => {
    const other = await newProject(h().deps);
    const theirs = await f.domain(h().deps, other);
    const res = await get(LIST, q({ domain: theirs.name }));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ msg: MSG.invalidDomain(theirs.name), status: 400 });
    const evil = '<script>"\'\\';
    const echoed = await get(LIST, q({ domain: evil }));
    expect(echoed.headers['content-type']).toContain('application/json');
    expect(echoed.json().msg).toBe(MSG.invalidDomain(evil));
  });

  it('when any parameter gets random text, then only documented statuses', async () => {
    const keys = ['page', 'limit', 'filter', 'channel', 'domain', 'link'];
    await property(fc.record({ k: fc.constantFrom(...keys), v: badQueryValue }), async ({ k, v }) => {
      await get(LIST, q({ [k]: wellFormed(v) }), k);
    });
  });
});

describe('GET /api/v1/attributed-users', () => {
  const users = (o: Record<string, string>) => get(USERS, q({ display_id: x.displayId, ...o }));

  it.each([
    '2024-02-30T00:00:00.000',
    '2024-01-01T24:00:00.000',
    '2024-01-01T23:59:60.000',
    '2024-01-01T00:00:00.000Z',
    '2024-01-01T00:00:00.000+05:30',
    '2024-13-01T00:00:00.000',
    '2024-1-1T00:00:00.000',
    '1e309',
    '\u0000',
    MILLION,
  ])('when start_timestamp is %s, then 400 Invalid timestamp format.', async (start) => {
    const res = await users({ start_timestamp: start });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ msg: MSG.invalidTimestamp, status: 400 });
  });

  it('when start is after end, then 200 with no users', async () => {
    const res = await users({ start_timestamp: '2025-01-02T00:00:00.000', end_timestamp: '2025-01-01T00:00:00.000' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.total_users).toBe(0);
  });

  it.each(['Mars/Base', 'UTC+25', '../../etc/passwd', 'America/New_York\u0000', '__proto__', 'a'.repeat(1000)])(
    'when timezone is %j, then 400 Invalid timezone format.',
    async (timezone) => {
      const res = await users({ timezone });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ msg: MSG.invalidTimezone, status: 400 });
    },
  );

  it('when the times fall in a DST gap or the repeated hour, then 200 (a defined reading, documented)', async () => {
    for (const [start, end] of [
      ['2024-03-10T02:30:00.000', '2024-03-10T02:59:59.999'],
      ['2024-11-03T01:30:00.000', '2024-11-03T01:45:00.000'],
    ] as const) {
      const res = await users({ timezone: 'America/New_York', start_timestamp: start, end_timestamp: end });
      expect(res.statusCode).toBe(200);
    }
  });

  it('when display_id is missing, empty or repeated, then 422 Required parameter missing.', async () => {
    for (const query of ['', 'display_id=', `display_id=${x.displayId}&display_id=b`]) {
      const res = await get(USERS, query);
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({ msg: MSG.requiredParameterMissing, status: 422 });
    }
  });

  it('when any parameter gets random text, then only documented statuses', async () => {
    const keys = ['display_id', 'start_timestamp', 'end_timestamp', 'timezone', 'page', 'limit'];
    await property(fc.record({ k: fc.constantFrom(...keys), v: badQueryValue }), async ({ k, v }) => {
      await users({ [k]: wellFormed(v) });
    });
  });
});

describe('GET /api/v1/get-attribution-result', () => {
  it('when neither parameter is given (or both are blank), then 400 with the spec text', async () => {
    for (const query of ['', 'user_id=&device_identifier=', 'user_id=%20', 'device_identifier=%00']) {
      const res = await get(RESULT, query);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ msg: MSG.attributionLookupRequired, status: 400 });
    }
  });

  it('when nothing is known about the ids, then 204 with an empty body', async () => {
    const res = await get(RESULT, q({ user_id: 'nobody', device_identifier: 'nothing' }));
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
  });

  it('when the ids are random text, then only documented statuses', async () => {
    await property(fc.record({ u: badQueryValue, d: badQueryValue }), async ({ u, d }) => {
      await get(RESULT, q({ user_id: wellFormed(u), device_identifier: wellFormed(d) }));
    });
  });
});

describe('POST /api/v1/create-campaign', () => {
  it('when name is blank, huge, or has emoji, then 400 or 201 with the name unchanged', async () => {
    expect((await send(CREATE, { name: '' })).json()).toEqual({ msg: MSG.nameRequired, status: 400 });
    expect((await send(CREATE, { name: '   ' })).statusCode).toBe(400);
    expect((await send(CREATE, { name: 'n'.repeat(10_000) })).statusCode).toBe(400);
    const emoji = 'Spring 👩‍👩‍👧‍👦 \u202eflip Cafe\u0301';
    const res = await send(CREATE, { name: emoji });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.name).toBe(emoji);
  });

  it.each(['android_web_redirect', 'ios_web_redirect', 'link_for_desktop_users', 'deeplink'])(
    'when %s is a dangerous URL, then 400',
    async (field) => {
      for (const url of [
        'javascript:alert(1)',
        'JaVaScRiPt:alert(1)',
        'data:text/html,<script>1</script>',
        'vbscript:x',
        'file:///etc/passwd',
        '//evil.example',
        'https://good.example\r\nSet-Cookie: a=1',
        'https://good.example/%0d%0aSet-Cookie:a=1'.replace('%0d%0a', '\r\n'),
        'https://a.example/\u0000',
        `https://a.example/${'a'.repeat(2100)}`,
      ]) {
        const res = await send(CREATE, { name: 'Redirect', [field]: url });
        expect(res.statusCode, `${field}=${url.slice(0, 60)}`).toBe(400);
      }
    },
  );

  it('when custom_display_id is unsafe or too long, then 400 with its text', async () => {
    for (const id of ['/', '..', '%2F', '?c=', '#', 'a b', 'a'.repeat(256), '\u0000', 'é']) {
      const res = await send(CREATE, { name: 'Id', custom_display_id: id });
      expect(res.statusCode).toBe(400);
    }
  });

  it('when 20 creates race for one custom_display_id, then exactly one 201 and nineteen 400', async () => {
    const id = `race-${Date.now().toString(36)}`;
    const all = await Promise.all(
      Array.from({ length: 20 }, () => send(CREATE, { name: 'Race', custom_display_id: id })),
    );
    const statuses = all.map((r) => r.statusCode).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 400)).toHaveLength(19);
  });

  it('when store_listing_ids are wrong, then 400 with the spec texts', async () => {
    const other = await newProject(h().deps);
    const theirs = await f.storeListing(h().deps, other, 'IOS');
    const ios2 = await f.storeListing(h().deps, x.p, 'IOS', 'second ios');
    const cases: [unknown, string][] = [
      ['x', MSG.storeListingIdsInvalid],
      [[''], MSG.storeListingIdsInvalid],
      [[1], MSG.storeListingIdsInvalid],
      [[theirs.id], MSG.storeListingsNotFound([theirs.id])],
      [[x.listingIds[0], ios2.id], MSG.storeListingSamePlatform],
    ];
    for (const [ids, msg] of cases) {
      const res = await send(CREATE, { name: 'Listings', store_listing_ids: ids });
      expect(res.json()).toEqual({ msg, status: 400 });
    }
  });
});

describe('PATCH /api/v1/campaigns/:display_id', () => {
  const params = () => ({ display_id: x.displayId });

  it('when active is "true", {} or name is blank, then 400 with the spec texts; unknown id 404', async () => {
    expect((await send(EDIT, { active: 'true' }, params())).json()).toEqual({ msg: MSG.activeNotBoolean, status: 400 });
    expect((await send(EDIT, {}, params())).json()).toEqual({ msg: MSG.needNameOrActive, status: 400 });
    expect((await send(EDIT, { name: ' \t' }, params())).json()).toEqual({ msg: MSG.nameEmpty, status: 400 });
    expect((await send(EDIT, { name: 'x' }, { display_id: 'no-such-id' })).statusCode).toBe(404);
  });

  it('when the body carries fields it may not set, then they are ignored (API3)', async () => {
    const other = await newProject(h().deps);
    const res = await send(
      EDIT,
      { name: 'Mass', meta: true, attributed_users: 9, project_id: other.project.id, display_id: 'hijack' },
      params(),
    );
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ display_id: x.displayId, name: 'Mass', meta: false, attributed_users: 0 });
    const row = await f.campaignRow(h().deps, x.p, x.displayId);
    expect(row?.project_id).toBe(x.p.project.id);
  });
});

describe('GET /api/v1/reporting/campaigns', () => {
  it.each([
    [{ from: '2024-02-01', to: '2024-01-01' }, 400],
    [{ from: '2024-02-30' }, 400],
    [{ to: '9999-12-31' }, 200],
    [{ from: '0000-01-01' }, 400],
    [{ to: '2024-1-1' }, 400],
    [{ limit: '101' }, 422],
    [{ limit: '100' }, 200],
    [{ page: '0' }, 422],
    [{ sort_field: 'installs;DROP TABLE campaigns' }, 400],
    [{ sort_field: 'name' }, 400],
    [{ sort_field: '__proto__' }, 400],
    [{ sort_order: 'x' }, 400],
    [{ events: Array.from({ length: 10_000 }, (_, i) => `e${i}`).join(',') }, 400],
    [{ events: ',,,' }, 200],
    [{ active_users: '-1' }, 400],
    [{ active_users: '1e9' }, 400],
    [{ active_users: 'NaN' }, 400],
    [{ active_users: '366' }, 400],
    [{ platform: 'web' }, 400],
    [{ view: 'x' }, 400],
    [{ meta_account_id: '-1' }, 400],
    [{ search: 'a'.repeat(501) }, 400],
    // network=%00 was a 500 (NUL in a Postgres text parameter); now it matches no campaign.
    [{ network: '\u0000' }, 200],
    [{ search: 'a\u0000' }, 200],
    [{ search: 'https://attr.test/?c=\u0000' }, 200],
  ] as [Record<string, string>, number][])('when the query is %j, then %i', async (query, status) => {
    expect((await get(REPORT, q(query))).statusCode).toBe(status);
  });

  it('when search holds % _ \' or \\, then they match literally (search=% is not "everything")', async () => {
    const p = await newProject(h().deps);
    await f.campaign(h().app, p, { name: '50% off' });
    await f.campaign(h().app, p, { name: 'plain' });
    await f.campaign(h().app, p, { name: "o'brien_x\\y" });
    const names = async (search: string) => {
      const res = await check(
        h().app,
        tally,
        { method: 'GET', url: `/api/v1/reporting/campaigns?${q({ search })}`, headers: p.headers },
        REPORT.allowed,
      );
      return (res.json().data.campaigns as { name: string }[]).map((c) => c.name).sort();
    };
    expect(await names('%')).toEqual(['50% off']);
    expect(await names('_')).toEqual(["o'brien_x\\y"]);
    expect(await names("'")).toEqual(["o'brien_x\\y"]);
    expect(await names('\\')).toEqual(["o'brien_x\\y"]);
    expect(await names('%%')).toEqual([]);
  });

  it('when any parameter gets random text, then only documented statuses', async () => {
    const keys = Object.keys(REPORT.query?.(x) ?? {});
    await property(
      fc.record({ k: fc.constantFrom(...keys, 'start_date', 'end_date'), v: badQueryValue }),
      async ({ k, v }) => {
        await get(REPORT, q({ [k]: wellFormed(v) }), k);
      },
    );
    await expectAlive(h().app);
  });
});
