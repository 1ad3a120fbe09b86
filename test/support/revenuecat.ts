// The RevenueCat webhook from a test: a project's token (PUT /api/v1/connections/revenuecat) and a
// POST of an event body with an Authorization header as RevenueCat sends it.
import { expect } from 'vitest';
import type { Res } from './client.ts';
import type { Harness, TestProject } from './harness.ts';

export async function connectRevenueCat(h: Harness, p: TestProject): Promise<string> {
  const res = await h.app.inject({ method: 'PUT', url: '/api/v1/connections/revenuecat', headers: p.headers });
  expect(res.statusCode).toBe(200);
  return res.json().data.authorization_token as string;
}

export function postRevenueCat(h: Harness, authorization: string, body: unknown): Promise<Res> {
  return h.app.inject({
    method: 'POST',
    url: '/webhook/revenuecat',
    headers: { authorization },
    payload: body as object,
  });
}
