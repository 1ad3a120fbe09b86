// Length limits count characters (code points), as /openapi.json and README say; they were counted
// in UTF-16 units in several places. The document's request schemas state every limit as a JSON Schema maxLength or a `{0,n}`
// pattern, which count Unicode code points (an emoji is one character; ajv counts the same way),
// and README "Events, payments, push tokens, integrations" says the limits count Unicode
// characters, not UTF-16 units. Routes that used `string.length` (two per emoji) refused, cut short
// or mangled a value the document calls valid, and a value one route stored could not be found by
// another. Each `it` sends a value the document calls VALID (checked with ajv
// against the served document) and asserts the route accepts it and keeps it intact.
import { beforeAll, describe, expect, it } from 'vitest';
import { attributedInstall, flushFacts, post, useClientHarness } from '../support/client.ts';
import { signUp } from '../support/commerce.ts';
import { newProject, type TestProject } from '../support/harness.ts';
import { answerProblems, fetchDoc, type OpenApiDoc, operation, requestProblems } from '../support/openapi.ts';

const h = useClientHarness();
const EMOJI = '😀'; // one character, two UTF-16 units
const emoji = (n: number) => EMOJI.repeat(n);

let doc: OpenApiDoc;
beforeAll(async () => {
  doc = await fetchDoc(h().app);
});

/** What the document says is wrong with the request ([] when it calls it valid). */
const docProblems = (method: string, path: string, req: Parameters<typeof requestProblems>[2]) =>
  requestProblems(doc, operation(doc, method, path), req);

/** An attributed Android install of a new project, as the client routes' body fields. */
async function attributed(): Promise<{ p: TestProject; displayId: string; body: Record<string, string> }> {
  const p = await newProject(h().deps);
  const { campaign, iid } = await attributedInstall(h(), p);
  return { p, displayId: campaign.displayId, body: { token: p.token, platform: 'ANDROID', install_instance_id: iid } };
}

describe('client routes', () => {
  it('when trigger sends a name of 300 emoji and an email whose 512th character is an emoji, then attributed-users returns both intact', async () => {
    // openapi trigger user_data.name/email: "trimmed and cut at 512 characters"; README: the client
    // routes' limits count Unicode characters (an emoji is one), not UTF-16 units.
    const { p, displayId, body } = await attributed();
    const name = emoji(300);
    const email = `${'a'.repeat(511)}${EMOJI}`;
    const req = { ...body, user_data: { id: 'emoji-user', name, email } };
    expect(docProblems('POST', '/api/client/trigger', { body: req })).toEqual([]);

    const res = await post(h(), 'trigger', req);

    expect(res.statusCode, res.body).toBe(200);
    const list = await h().app.inject({
      method: 'GET',
      url: `/api/v1/attributed-users?display_id=${displayId}`,
      headers: p.headers,
    });
    const user = list.json().data.users[0].user_data;
    expect([...user.name].length).toBe(300);
    expect(user.name).toBe(name);
    expect(user.email).toBe(email);
  });

  it('when update-push-token sends a token of 2100 emoji (≤ 4096 characters), then it is accepted', async () => {
    // openapi update-push-token push_token: "trimmed, then 1 to 4096 characters"; README: characters, not UTF-16 units.
    const { body } = await attributed();
    const req = { ...body, push_token: emoji(2100) };
    expect(docProblems('POST', '/api/client/update-push-token', { body: req })).toEqual([]);

    const res = await post(h(), 'update-push-token', req);

    expect(res.statusCode, res.body).toBe(200);
    expect(answerProblems(doc, 'POST', '/api/client/update-push-token', res)).toEqual([]);
  });

  it('when handle-deeplink sends a deeplink_url of 2100 characters with emoji (≤ 4096), then it is processed', async () => {
    // openapi handle-deeplink deeplink_url: "trimmed, then 1 to 4096 characters"; README: characters, not UTF-16 units.
    const { body } = await attributed();
    const req = { ...body, deeplink_url: `https://x.test/${emoji(2100)}` };
    expect(docProblems('POST', '/api/client/handle-deeplink', { body: req })).toEqual([]);

    const res = await post(h(), 'handle-deeplink', req);

    expect(res.statusCode, res.body).toBe(200);
    expect(answerProblems(doc, 'POST', '/api/client/handle-deeplink', res)).toEqual([]);
  });
});

describe('/api/v1 routes reading what the client routes stored', () => {
  it('when a user registered with an id of 200 emoji is looked up by get-attribution-result, then 200 with the campaign', async () => {
    // trigger accepts user_data.id of 1 to 256 characters; openapi get-attribution-result user_id:
    // "trimmed, then 1 to 256 characters without NUL". The spec: "Response 200 ... data: AttributionResult".
    const { p, displayId, body } = await attributed();
    const userId = emoji(200);
    await signUp(h(), p, body.install_instance_id as string, userId);
    const query = { user_id: userId };
    expect(docProblems('GET', '/api/v1/get-attribution-result', { query })).toEqual([]);

    const res = await h().app.inject({
      method: 'GET',
      url: '/api/v1/get-attribution-result',
      query,
      headers: p.headers,
    });

    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.display_id).toBe(displayId);
  });

  it('when a recorded event of 200 emoji is named in `events`, then the report shows its count', async () => {
    // README reporting `events`: "Names the project never recorded (or longer than 255 characters)
    // are dropped silently; every recorded name asked for is shown". capture-event accepts 1-255 characters.
    const { p, body } = await attributed();
    await signUp(h(), p, body.install_instance_id as string, 'reporter');
    const name = emoji(200);
    const captured = await post(h(), 'capture-event', { ...body, event_name: name });
    expect(captured.json().data.message).toBe('Event captured successfully');
    await flushFacts(h());
    const query = { events: name };
    expect(docProblems('GET', '/api/v1/reporting/campaigns', { query })).toEqual([]);

    const res = await h().app.inject({ method: 'GET', url: '/api/v1/reporting/campaigns', query, headers: p.headers });

    expect(res.statusCode, res.body).toBe(200);
    const events = res.json().data.campaigns[0].custom_events ?? {};
    expect(Object.keys(events)).toEqual([name]);
  });

  it('when reporting `search` is 300 emoji (≤ 500 characters), then 200', async () => {
    // openapi reporting search: "at most 500 characters once trimmed" (pattern {0,498}); README: "at most 500 characters".
    const p = await newProject(h().deps);
    const query = { search: emoji(300) };
    expect(docProblems('GET', '/api/v1/reporting/campaigns', { query })).toEqual([]);

    const res = await h().app.inject({ method: 'GET', url: '/api/v1/reporting/campaigns', query, headers: p.headers });

    expect(res.statusCode, res.body).toBe(200);
  });

  it('when an event name of 200 emoji (one capture-event accepts) is mapped to AddToCart, then it is saved', async () => {
    // openapi mappings name: "an event name: 1 to 256 characters, not blank" (maxLength 256).
    const p = await newProject(h().deps);
    const body = { mappings: [{ kind: 'event', name: emoji(200), to: 'AddToCart' }] };
    expect(docProblems('PUT', '/api/v1/connections/meta/mappings', { body })).toEqual([]);

    const res = await h().app.inject({
      method: 'PUT',
      url: '/api/v1/connections/meta/mappings',
      headers: p.headers,
      payload: body,
    });

    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.mappings).toEqual([{ kind: 'event', name: emoji(200), to: 'AddToCart' }]);
  });

  it('when a spend row has an ad_set_id of 200 emoji and an ad_set_name of 300 emoji, then the row is accepted', async () => {
    // openapi spend rows[].ad_set_id maxLength 256, ad_set_name maxLength 500 (characters).
    const { p, displayId } = await attributed();
    const body = {
      rows: [
        {
          day: '2025-03-01',
          campaign_display_id: displayId,
          ad_set_id: emoji(200),
          ad_set_name: emoji(300),
          amount: 1,
        },
      ],
    };
    expect(docProblems('PUT', '/api/v1/spend', { body })).toEqual([]);

    const res = await h().app.inject({ method: 'PUT', url: '/api/v1/spend', headers: p.headers, payload: body });

    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual(expect.objectContaining({ accepted: 1, rejected: [] }));
  });
});
