// Values at the edge of what /openapi.json's request schemas allow: JSON numbers beyond 2^53 used
// as ids, and NUL in text fields. A number beyond 2^53 reaches the parser already rounded, so two
// different ids became one (a second payment dropped as a duplicate, a second user merged into the
// first, a Meta dataset id pointing at another dataset): such a number is now refused with the
// field's 400, and the document bounds id numbers at 2^53 - 1. NUL in a mapping name reached
// Postgres (500); the document's user-id pattern called a NUL-only id valid though every route
// refuses it.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { attribute, init, post, useClientHarness } from '../support/client.ts';
import { signUp } from '../support/commerce.ts';
import { newProject, type TestProject } from '../support/harness.ts';
import { answerProblems, fetchDoc, type OpenApiDoc, operation, requestProblems } from '../support/openapi.ts';

// SECRETS_KEY: PUT /connections/meta needs it in service mode (else its documented 503).
const h = useClientHarness({ SECRETS_KEY: 'ab'.repeat(32) });

let doc: OpenApiDoc;
beforeAll(async () => {
  doc = await fetchDoc(h().app);
});

/** A new project with an initialised, decided Android install; its client body fields. */
async function install(p?: TestProject): Promise<{ p: TestProject; body: Record<string, string> }> {
  const project = p ?? (await newProject(h().deps));
  const iid = randomUUID();
  expect((await init(h(), project.token, { install_instance_id: iid })).statusCode).toBe(202);
  await attribute(h(), project, iid);
  return { p: project, body: { token: project.token, platform: 'ANDROID', install_instance_id: iid } };
}

describe('NUL in a mapping name', () => {
  it('when PUT /connections/meta/mappings names an event with a NUL, then a documented 4xx or 200, never 500', async () => {
    // openapi mappings name: `z.string().max(256).regex(/\S/)`, NUL allowed; answers documented:
    // 200 or 400 `Invalid mapping at index <i>: <problem>`. Catalog I8: garbage never causes a 5xx.
    // capture-event drops NUL from event names (README), so a cleaned name or a 400 are both fine.
    const p = await newProject(h().deps);
    const body = { mappings: [{ kind: 'event', name: 'add\u0000to_cart', to: 'AddToCart' }] };

    const res = await h().app.inject({
      method: 'PUT',
      url: '/api/v1/connections/meta/mappings',
      headers: p.headers,
      payload: body,
    });

    expect(res.statusCode, res.body).toBeLessThan(500);
    expect(answerProblems(doc, 'PUT', '/api/v1/connections/meta/mappings', res)).toEqual([]);
  });
});

describe('JSON numbers beyond 2^53 as ids', () => {
  it('when the Meta dataset_id is the number 9999999999999999, then it is refused, never stored as another dataset', async () => {
    // openapi connections/meta dataset_id: "or a whole number" — an integer, which the document
    // bounds at 9007199254740991 (ajv calls 9999999999999999 invalid). The parsed double is
    // 1e16, so accepting it saves dataset 10000000000000000 and sends Purchases to a wrong dataset.
    const p = await newProject(h().deps);
    const raw = `{"dataset_id":9999999999999999,"access_token":"${'A'.repeat(30)}","active":true}`;
    expect(
      requestProblems(doc, operation(doc, 'PUT', '/api/v1/connections/meta'), { body: JSON.parse(raw) }),
    ).not.toEqual([]);

    const res = await h().app.inject({
      method: 'PUT',
      url: '/api/v1/connections/meta',
      headers: { ...p.headers, 'content-type': 'application/json' },
      payload: raw,
    });

    expect(res.json()).toEqual({
      msg: 'Invalid connection: dataset_id must be the numeric id of the Meta dataset',
      status: 400,
    });
  });

  it('when two payments carry payment_id 9007199254740993 (past 2^53) and 9007199254740991, then the first is refused and the second stored', async () => {
    // openapi capture-payment payment_id: string or number, "a number is taken as its text";
    // spec Rule 4: only a *repeated* payment_id is ignored. 9007199254740993 parses to ...992: kept,
    // it would take the id of another payment (...992 sent later was dropped as a duplicate).
    const { p, body } = await install();
    await signUp(h(), p, body.install_instance_id as string, 'payer');
    const send = (id: string) =>
      post(
        h(),
        'capture-payment',
        `{"token":"${p.token}","install_instance_id":"${body.install_instance_id}","amount":5,"payment_id":${id}}`,
        {
          headers: { 'content-type': 'application/json' },
        },
      );

    const first = await send('9007199254740993');
    const second = await send('9007199254740991');

    expect(first.json()).toEqual({
      msg: 'payment_id must be a string or number of at most 256 characters.',
      status: 400,
    });
    expect(second.statusCode).toBe(201);
  });

  it('when two installs register user ids 9007199254740993 (past 2^53) and 9007199254740991, then the first is refused and the second registers', async () => {
    // openapi trigger user_data.id: string or number, "a number is taken as its text"; README:
    // "The first trigger of a user id in a project registers the user and writes one sign-up fact".
    // ...993 parses to ...992: kept, a user ...992 would merge into it (one sign-up lost).
    const { p, body: a } = await install();
    const { body: b } = await install(p);
    const trigger = (iid: string, id: string) =>
      post(h(), 'trigger', `{"token":"${p.token}","install_instance_id":"${iid}","user_data":{"id":${id}}}`, {
        headers: { 'content-type': 'application/json' },
      });

    const first = await trigger(a.install_instance_id as string, '9007199254740993');
    const second = await trigger(b.install_instance_id as string, '9007199254740991');

    expect(first.statusCode).toBe(400);
    expect(second.json().data.trigger).toBe(true);
  });
});

describe('the document on NUL-only user ids', () => {
  it('when user_data.id is "\\u0000" (refused with 400), then /openapi.json calls it invalid too', async () => {
    // The document's user-id pattern is trimmedText(1, 256) whose `\S` matches NUL, while the parser
    // drops NUL first (lib/storable.ts) and refuses the empty id: the document promises more than
    // the code accepts (same pattern on customer-user-id, capture-* user_id, push_token, deeplink_url).
    const { body } = await install();
    const req = { ...body, user_data: { id: '\u0000' } };

    const res = await post(h(), 'trigger', req);

    expect(res.statusCode).toBe(400);
    expect(requestProblems(doc, operation(doc, 'POST', '/api/client/trigger'), { body: req })).not.toEqual([]);
  });
});
