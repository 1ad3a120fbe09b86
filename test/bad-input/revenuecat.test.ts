// RevenueCat-shaped garbage on POST /webhook/revenuecat (catalog §4c, §2 I8; README "RevenueCat
// webhook"): events of every known and odd type whose fields are each the sample's, a bad literal,
// random JSON or missing, wrapped or not, duplicated keys; any Authorization header; and the §4c
// bad bodies behind a wrong token (refused before the body is read). Oracle: 200 with a documented
// data.result or 400 naming the field (or 401 `Unauthorized access.`), never 5xx, under 1 s, each
// answer as /openapi.json documents it; and every `stored` answer is exactly one payments row.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rcEvent } from '../support/bad-input-garbage.ts';
import { check, expectAlive, property, type Res, Tally } from '../support/bad-input-kit.ts';
import { type Fixture, makeFixture, useBadInputHarness } from '../support/bad-input-routes.ts';
import { rcBody } from '../support/bad-input-surfaces.ts';
import { BAD_BODIES, badLiteral } from '../support/bad-input-values.ts';
import { answerProblems, fetchDoc, type OpenApiDoc } from '../support/openapi.ts';

const h = useBadInputHarness();
const tally = new Tally('revenuecat.test.ts');
let x: Fixture;
let doc: OpenApiDoc;

beforeAll(async () => {
  x = await makeFixture(h());
  doc = await fetchDoc(h().app);
});
afterAll(() => {
  console.log(tally.line());
});

const UNAUTHORIZED = JSON.stringify({ msg: 'Unauthorized access.', status: 401 });
const GENERIC_400 = ['Invalid JSON body.', 'Request body must be a JSON object.', 'event must be an object.'];

function send(body: string | Buffer, authorization: string | undefined, label: string, type = 'application/json') {
  const headers: Record<string, string> = { host: 'attr.test', 'content-type': type };
  if (authorization !== undefined) {
    headers.authorization = authorization;
  }
  return check(
    h().app,
    tally,
    {
      method: 'POST',
      url: '/webhook/revenuecat',
      headers,
      payload: body,
      label: `POST /webhook/revenuecat [${label}]`,
    },
    [200, 400, 401, 413, 415],
  );
}

/** The answer is documented, and a 400 names an event field or is one of the generic body texts. */
function expectDocumented(res: Res, label: string): void {
  const problems = answerProblems(doc, 'POST', '/webhook/revenuecat', res);
  if (res.statusCode === 400) {
    const msg = (res.json() as { msg: string }).msg;
    if (!GENERIC_400.includes(msg) && !/^event\.[a-z_]+ must be .+\.$/.test(msg)) {
      problems.push(`400 text ${msg}`);
    }
  }
  expect(problems, `${label}: ${res.body.slice(0, 300)}`).toEqual([]);
}

async function paymentRows(): Promise<{ n: number; removed: number }> {
  const [row] = await h().deps.sql<{ n: number; removed: number }[]>`
    SELECT count(*)::int AS n, count(removed_at)::int AS removed FROM payments WHERE project_id = ${x.p.project.id}`;
  return row ?? { n: 0, removed: 0 };
}

describe('RevenueCat-shaped garbage', () => {
  it('when events of any type carry fields bad, missing, random or duplicated, then 200 with a result or 400 naming the field, and each stored answer is one row', async () => {
    const before = await paymentRows();
    let stored = 0;
    let removed = 0;
    // Mostly a readable wrapper (the event is what is fuzzed), else the wrapper itself is garbage.
    const wrap = fc.constantFrom(
      'plain',
      'plain',
      'api_version',
      'duplicate, good last',
      'duplicate',
      'bare',
      'array',
      'event literal' as const,
    );
    await property(
      fc.record({ event: rcEvent(x), wrap, literal: badLiteral }),
      async ({ event, wrap: w, literal }) => {
        const body =
          w === 'plain'
            ? `{"event":${event}}`
            : w === 'api_version'
              ? `{"api_version":${literal},"event":${event}}`
              : w === 'duplicate, good last'
                ? `{"event":${literal},"event":${event}}`
                : w === 'duplicate'
                  ? `{"event":${event},"event":${literal}}`
                  : w === 'bare'
                    ? event
                    : w === 'array'
                      ? `[${event}]`
                      : `{"event":${literal}}`;
        const res = await send(body, `Bearer ${x.rcToken}`, w);
        expect([200, 400, 413], body.slice(0, 300)).toContain(res.statusCode);
        expectDocumented(res, body.slice(0, 300));
        if (res.statusCode === 200) {
          const data = (res.json() as { data: { result: string; removed: number; restored: number } }).data;
          stored += data.result === 'stored' ? 1 : 0;
          // A REFUND_REVERSED counts a removed payment again (its removed_at is cleared).
          removed += data.removed - data.restored;
        }
      },
      300,
    );
    const after = await paymentRows();

    expect(stored).toBeGreaterThan(0);
    expect(after.n - before.n).toBe(stored);
    expect(after.removed - before.removed).toBe(removed);
    await expectAlive(h().app);
  });

  it('when a purchase is sent again with the transaction id as a number, past 2^53 or holding NUL, then the first is stored once and the rest answer without a 5xx', async () => {
    const before = await paymentRows();
    const first = await send(
      JSON.stringify(rcBody(x, { id: 'evt-n', transaction_id: '777000000000001' })),
      x.rcToken,
      'txn',
    );
    const asNumber = await send(
      `{"event":${JSON.stringify(rcBody(x, { id: 'evt-n2' }).event).replace('"100000000000042"', '777000000000001')}}`,
      x.rcToken,
      'txn number',
    );
    const past = await send(
      `{"event":${JSON.stringify(rcBody(x, { id: 'evt-n3' }).event).replace('"100000000000042"', '9007199254740993')}}`,
      x.rcToken,
      'txn past 2^53',
    );
    const nul = await send(JSON.stringify(rcBody(x, { id: 'evt-n4', transaction_id: '\u0000' })), x.rcToken, 'txn NUL');

    expect(first.json().data.result).toBe('stored');
    expect(asNumber.json().data.result).toBe('duplicate');
    expect(past.json()).toEqual({
      msg: 'event.transaction_id must be a string of at most 256 characters or null.',
      status: 400,
    });
    // NUL alone is no id: the event id stands in as the payment_id.
    expect(nul.json().data.result).toBe('stored');
    expect((await paymentRows()).n - before.n).toBe(2);
  });
});

describe('the Authorization header', () => {
  const purchase = () => JSON.stringify(rcBody(x, { type: 'TEST' }));

  it('when Authorization holds any text, then 200 only for the token (bare or Bearer), else 401 Unauthorized access.', async () => {
    const token = () => x.rcToken;
    const shapes = fc.oneof(
      fc.constantFrom(
        () => `Bearer ${token()}`,
        () => `bearer ${token()}`,
        () => `BEARER\t${token()}`,
        () => ` ${token()} `,
        () => `Bearer  ${token()}`,
        () => `Bearer ${token()}, Bearer ${token()}`,
        () => `Bearer ${token()}x`,
        () => `Basic ${Buffer.from(`${token()}:`).toString('base64')}`,
        () => `Token ${token()}`,
        () => `Bearer Bearer ${token()}`,
        () => token().toUpperCase(),
        () => `${token().slice(0, -1)}`,
        () => `Bearer ${'a'.repeat(257)}`,
        () => 'Bearer ',
        () => '',
        () => `Bearer ${x.p.serverKey}`,
        () => x.p.token,
        () => x.mcpToken,
      ),
      fc.string({ unit: 'grapheme-ascii', maxLength: 80 }).map((s) => () => s),
      fc.string({ unit: 'grapheme-ascii', maxLength: 20 }).map((s) => () => `Bearer ${token()}${s}`),
    );
    await property(shapes, async (shape) => {
      const header = shape();
      const res = await send(purchase(), header, 'authorization');
      const bare = header
        .trim()
        .replace(/^bearer\s+/i, '')
        .trim();
      if (bare === x.rcToken) {
        expect(res.statusCode, header).toBe(200);
      } else {
        expect(res.body, header).toBe(UNAUTHORIZED);
      }
    });
  });

  it('when the token is wrong or missing, then every §4c bad body is 401 before it is read; with the token, 400, 413 or 415', async () => {
    for (const b of BAD_BODIES) {
      for (const auth of [undefined, 'Bearer rc_wrong', `Bearer ${x.mcpToken}`]) {
        const res = await send(b.body, auth, `${b.label} ${auth ? 'wrong' : 'none'}`, b.type);
        expect(res.body, b.label).toBe(UNAUTHORIZED);
      }
      const res = await send(b.body, `Bearer ${x.rcToken}`, b.label, b.type);
      expect([400, 413, 415], b.label).toContain(res.statusCode);
      expectDocumented(res, b.label);
    }
    await expectAlive(h().app);
  });
});
