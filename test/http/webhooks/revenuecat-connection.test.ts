// PUT, GET and DELETE /api/v1/connections/revenuecat (product notes "RevenueCat": "Generate
// Authorization Token"; texts are ours): PUT answers a new token once (Postgres keeps its SHA-256
// only) and a second PUT rotates it; GET never carries it; DELETE removes it. Server key with the
// campaign family's 401 texts; each project sees only its own connection.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newProject, type TestProject, useHarness } from '../../support/harness.ts';
import { answerProblems, fetchDoc } from '../../support/openapi.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

const URL = '/api/v1/connections/revenuecat';
const WEBHOOK_URL = 'https://attr.test/webhook/revenuecat';

function call(method: 'PUT' | 'GET' | 'DELETE', headers: Record<string, string>) {
  return h().app.inject({ method, url: URL, headers });
}

async function storedRows(p: TestProject) {
  return h().deps.sql<{ token_hash: Buffer; token_prefix: string }[]>`
    SELECT token_hash, token_prefix FROM revenuecat_connections WHERE project_id = ${p.project.id}`;
}

describe('200', () => {
  it('when PUT is sent, then a token is answered once and only its SHA-256 is stored', async () => {
    const doc = await fetchDoc(h().app);
    const p = await newProject(h().deps);

    const res = await call('PUT', p.headers);

    expect(res.statusCode).toBe(200);
    const body = res.json();
    const token = body.data.authorization_token as string;
    expect(body).toEqual({
      msg: 'RevenueCat authorization token created. Paste it into the webhook settings in RevenueCat.',
      status: 200,
      data: {
        connected: true,
        authorization_token: expect.stringMatching(/^rc_[A-Za-z0-9_-]{43}$/),
        webhook_url: WEBHOOK_URL,
        token_prefix: token.slice(0, 7),
        created_at: expect.any(String),
        rotated_at: null,
      },
    });
    expect(answerProblems(doc, 'PUT', URL, res)).toEqual([]);
    const rows = await storedRows(p);
    expect(rows).toEqual([
      { token_hash: createHash('sha256').update(token).digest(), token_prefix: token.slice(0, 7) },
    ]);
    const [dump] = await h().deps.sql<{ row: string }[]>`
      SELECT row_to_json(c)::text AS row FROM revenuecat_connections c WHERE project_id = ${p.project.id}`;
    expect(dump?.row).not.toContain(token);
  });

  it('when PUT is sent again, then a new token replaces the first', async () => {
    const p = await newProject(h().deps);
    const first = (await call('PUT', p.headers)).json().data.authorization_token;

    const res = await call('PUT', p.headers);

    expect(res.json()).toMatchObject({
      msg: 'RevenueCat authorization token rotated. Paste it into the webhook settings in RevenueCat; the previous token no longer works.',
      data: { connected: true, rotated_at: expect.any(String) },
    });
    expect(res.json().data.authorization_token).not.toBe(first);
    expect(await storedRows(p)).toHaveLength(1);
  });

  it('when GET is sent, then it says whether a token is set, never the token', async () => {
    const doc = await fetchDoc(h().app);
    const p = await newProject(h().deps);

    const before = await call('GET', p.headers);
    const token = (await call('PUT', p.headers)).json().data.authorization_token;
    const after = await call('GET', p.headers);

    expect(before.json()).toEqual({
      msg: 'No RevenueCat authorization token is set for this project.',
      status: 200,
      data: { connected: false, webhook_url: WEBHOOK_URL },
    });
    expect(after.json()).toEqual({
      msg: 'RevenueCat authorization token is set.',
      status: 200,
      data: {
        connected: true,
        webhook_url: WEBHOOK_URL,
        token_prefix: token.slice(0, 7),
        created_at: expect.any(String),
        rotated_at: null,
      },
    });
    expect(after.body).not.toContain(token);
    expect(answerProblems(doc, 'GET', URL, before)).toEqual([]);
    expect(answerProblems(doc, 'GET', URL, after)).toEqual([]);
  });

  it('when DELETE is sent, then the token is removed, and a second DELETE removes nothing', async () => {
    const doc = await fetchDoc(h().app);
    const p = await newProject(h().deps);
    await call('PUT', p.headers);

    const first = await call('DELETE', p.headers);
    const second = await call('DELETE', p.headers);

    expect(first.json()).toEqual({
      msg: 'RevenueCat authorization token removed.',
      status: 200,
      data: { removed: true },
    });
    expect(second.json()).toEqual({
      msg: 'No RevenueCat authorization token was set; nothing was removed.',
      status: 200,
      data: { removed: false },
    });
    expect(answerProblems(doc, 'DELETE', URL, first)).toEqual([]);
    expect(await storedRows(p)).toEqual([]);
  });

  it("when a project asks, then it never sees or removes another project's token", async () => {
    const a = await newProject(h().deps);
    const b = await newProject(h().deps);
    await call('PUT', a.headers);

    const seen = await call('GET', b.headers);
    const removed = await call('DELETE', b.headers);

    expect(seen.json().data.connected).toBe(false);
    expect(removed.json().data.removed).toBe(false);
    expect(await storedRows(a)).toHaveLength(1);
  });
});

describe('401', () => {
  it.each(['PUT', 'GET', 'DELETE'] as const)(
    'when %s has no key or a wrong one, then the campaign family texts',
    async (method) => {
      const p = await newProject(h().deps);

      const missing = await call(method, {});
      const wrong = await call(method, { 'service-key': 'sk_wrong' });
      const token = await call(method, { 'service-key': p.token });

      expect(missing.json()).toEqual({ msg: 'Server key missing!', status: 401 });
      expect(wrong.json()).toEqual({ msg: 'Server key invalid!', status: 401 });
      expect(token.json()).toEqual({ msg: 'Server key invalid!', status: 401 });
      expect(await storedRows(p)).toEqual([]);
    },
  );
});
