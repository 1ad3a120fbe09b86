// POST /webhook/revenuecat refusals: 401 `Unauthorized access.` for a missing, unknown, rotated or
// removed token and for the project's other credentials, before the body is read; 400 with the
// field's text for a body an event that maps to a payment cannot be stored from. Never a 5xx, and
// nothing stored. Each answer is the envelope /openapi.json documents.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useClientHarness } from '../../support/client.ts';
import { registeredUser } from '../../support/commerce.ts';
import { newProject, type TestProject } from '../../support/harness.ts';
import { answerProblems, fetchDoc } from '../../support/openapi.ts';

const h = useClientHarness();

const UNAUTHORIZED = { msg: 'Unauthorized access.', status: 401 };
const bad = (msg: string) => ({ msg, status: 400 });

function purchase(event: Record<string, unknown> = {}) {
  return {
    api_version: '1.0',
    event: {
      type: 'INITIAL_PURCHASE',
      id: 'evt-1',
      app_user_id: 'u1',
      environment: 'PRODUCTION',
      transaction_id: '1000001',
      price: 1.5,
      currency: 'USD',
      ...event,
    },
  };
}

async function connect(p: TestProject): Promise<string> {
  const res = await h().app.inject({ method: 'PUT', url: '/api/v1/connections/revenuecat', headers: p.headers });
  return res.json().data.authorization_token as string;
}

function send(headers: Record<string, string>, payload: unknown) {
  return h().app.inject({
    method: 'POST',
    url: '/webhook/revenuecat',
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
}

async function paymentCount(p: TestProject): Promise<number> {
  const [row] = await h().deps.sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM payments WHERE project_id = ${p.project.id}`;
  return row?.n ?? 0;
}

describe('401', () => {
  it('when the token is missing, blank, unknown, or another credential of the project, then 401 and nothing stored', async () => {
    const doc = await fetchDoc(h().app);
    const { p } = await registeredUser(h(), 'u1');
    const token = await connect(p);
    const cases: Record<string, string>[] = [
      {},
      { authorization: '' },
      { authorization: 'Bearer ' },
      { authorization: 'Bearer rc_unknown-token-of-no-project' },
      { authorization: `Basic ${token}` },
      { authorization: token.toUpperCase() },
      { authorization: `${token}x` },
      { authorization: p.serverKey },
      { authorization: p.token },
      { 'service-key': p.serverKey },
      { 'x-authorization': token },
      { authorization: 'x'.repeat(300) },
    ];

    for (const headers of cases) {
      const res = await send(headers, purchase());

      expect(res.statusCode, JSON.stringify(headers)).toBe(401);
      expect(res.json()).toEqual(UNAUTHORIZED);
      expect(answerProblems(doc, 'POST', '/webhook/revenuecat', res)).toEqual([]);
    }
    expect(await paymentCount(p)).toBe(0);
  });

  it('when the token was rotated or removed, then the old token answers 401', async () => {
    const { p } = await registeredUser(h(), 'u1');
    const old = await connect(p);
    const current = await connect(p);

    const rotated = await send({ authorization: old }, purchase());
    const accepted = await send({ authorization: current }, purchase({ id: 'evt-2', transaction_id: '1000002' }));
    await h().app.inject({ method: 'DELETE', url: '/api/v1/connections/revenuecat', headers: p.headers });
    const removed = await send({ authorization: current }, purchase({ id: 'evt-3', transaction_id: '1000003' }));

    expect(rotated.json()).toEqual(UNAUTHORIZED);
    expect(accepted.json().data.result).toBe('stored');
    expect(removed.json()).toEqual(UNAUTHORIZED);
    expect(await paymentCount(p)).toBe(1);
  });

  it('when the token is wrong and the body is not JSON, then 401: the token is checked before the body is read', async () => {
    const res = await send({ authorization: 'Bearer nope' }, '{"event":');
    expect(res.json()).toEqual(UNAUTHORIZED);
  });
});

describe('400', () => {
  const eventInvalid = (field: string, rule: string) => bad(`event.${field} must be ${rule}.`);
  const ID = eventInvalid('id', 'a non-empty string of at most 256 characters');
  const USER = eventInvalid('app_user_id', 'a non-empty string of at most 256 characters');
  const PRICE = (key: string) =>
    eventInvalid(key, 'a number from -100000000000000000000 to 100000000000000000000 or null');

  it.each<[string, unknown, { msg: string; status: number }]>([
    ['truncated JSON', '{"event":', bad('Invalid JSON body.')],
    ['an array', '[]', bad('Request body must be a JSON object.')],
    ['a string', '"x"', bad('Request body must be a JSON object.')],
    ['an empty object', {}, bad('event must be an object.')],
    ['event null', { event: null }, bad('event must be an object.')],
    ['event an array', { event: [] }, bad('event must be an object.')],
    ['no type', { event: { id: 'e' } }, eventInvalid('type', 'a non-empty string of at most 64 characters')],
    ['a numeric type', { event: { type: 1 } }, eventInvalid('type', 'a non-empty string of at most 64 characters')],
    ['a blank type', { event: { type: '  ' } }, eventInvalid('type', 'a non-empty string of at most 64 characters')],
    ['a purchase without id', purchase({ id: undefined }), ID],
    ['a purchase with an empty id', purchase({ id: '' }), ID],
    ['a purchase with an object id', purchase({ id: {} }), ID],
    [
      'a purchase without environment',
      purchase({ environment: undefined }),
      eventInvalid('environment', 'PRODUCTION or SANDBOX'),
    ],
    [
      'a purchase with environment "production"',
      purchase({ environment: 'production' }),
      eventInvalid('environment', 'PRODUCTION or SANDBOX'),
    ],
    ['a purchase naming no user', purchase({ app_user_id: undefined }), USER],
    [
      'a purchase with a blank user and aliases of no strings',
      purchase({ app_user_id: ' ', aliases: [1, null] }),
      USER,
    ],
    ['a price as a string', purchase({ price: '9.99' }), PRICE('price')],
    ['a price of 1e21', purchase({ price: 1e21 }), PRICE('price')],
    [
      'price_in_purchased_currency as a string',
      purchase({ price_in_purchased_currency: 'x' }),
      PRICE('price_in_purchased_currency'),
    ],
    [
      'a transaction_id object',
      purchase({ transaction_id: {} }),
      eventInvalid('transaction_id', 'a string of at most 256 characters or null'),
    ],
    [
      'a currency number',
      purchase({ currency: 978 }),
      eventInvalid('currency', 'a string of at most 256 characters or null'),
    ],
    [
      'a cancel_reason object',
      purchase({ type: 'CANCELLATION', cancel_reason: {} }),
      eventInvalid('cancel_reason', 'a string of at most 256 characters or null'),
    ],
  ])('when the body is %s, then 400 with its text and nothing stored', async (_case, body, expected) => {
    const doc = await fetchDoc(h().app);
    const { p } = await registeredUser(h(), 'u1');
    const token = await connect(p);

    const res = await send({ authorization: token }, body);

    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(expected);
    expect(answerProblems(doc, 'POST', '/webhook/revenuecat', res)).toEqual([]);
    expect(await paymentCount(p)).toBe(0);
  });

  it('when any event field holds any JSON value (fast-check), then 200 or 400, never a 5xx', async () => {
    const { p } = await registeredUser(h(), 'u1');
    const token = await connect(p);
    const fields = Object.keys(purchase().event).concat([
      'aliases',
      'original_app_user_id',
      'price_in_purchased_currency',
    ]);
    const types = fc.constantFrom('INITIAL_PURCHASE', 'RENEWAL', 'CANCELLATION', 'BILLING_ISSUE', 'TEST', 'EXPIRATION');
    const statuses = new Set<number>();

    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...fields), fc.jsonValue(), types, async (field, value, type) => {
        const res = await send({ authorization: token }, purchase({ type, [field]: value, id: `fc-${Math.random()}` }));
        statuses.add(res.statusCode);
        expect([200, 400]).toContain(res.statusCode);
      }),
      { numRuns: 80, seed: 20261121 },
    );
    expect([...statuses].sort()).toEqual([200, 400]);
  });

  it('when the body is sent as text/plain, then 415', async () => {
    const p = await newProject(h().deps);
    const token = await connect(p);

    const res = await h().app.inject({
      method: 'POST',
      url: '/webhook/revenuecat',
      headers: { authorization: token, 'content-type': 'text/plain' },
      payload: JSON.stringify(purchase()),
    });

    expect(res.json()).toEqual({ msg: 'Unsupported content type. Send application/json.', status: 415 });
  });
});
