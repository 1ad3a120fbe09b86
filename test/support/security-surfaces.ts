// Requests of the security suite on the MCP server and the RevenueCat webhook: an MCP tool call with
// its parsed answer, a RevenueCat connection (its token), and RevenueCat event bodies.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Harness, TestProject } from './harness.ts';

export type ToolAnswer = { status: number; isError: boolean; data: Record<string, unknown>; body: string };

let nextId = 1;

/** tools/call through POST /mcp/<token>; the tool's JSON (its text content) when the answer is a result. */
export async function callTool(
  app: FastifyInstance,
  token: string,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolAnswer> {
  const res = await app.inject({
    method: 'POST',
    url: `/mcp/${token}`,
    headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' },
    payload: { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args } },
  });
  const result = res.statusCode === 200 ? (res.json() as { result?: ToolResult }).result : undefined;
  const text = result?.content?.[0]?.text;
  return {
    status: res.statusCode,
    isError: result?.isError ?? true,
    data: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    body: res.body,
  };
}

type ToolResult = { content?: { type: string; text: string }[]; isError?: boolean };

/** PUT /api/v1/connections/revenuecat with the project's key: its (new) webhook token. */
export async function connectRevenueCat(h: Harness, p: TestProject): Promise<string> {
  const res = await h.app.inject({ method: 'PUT', url: '/api/v1/connections/revenuecat', headers: p.headers });
  if (res.statusCode !== 200) {
    throw new Error(`PUT /api/v1/connections/revenuecat answered ${res.statusCode}`);
  }
  return (res.json() as { data: { authorization_token: string } }).data.authorization_token;
}

/** A RevenueCat event body (a production purchase of 4.99 USD unless overridden). */
export function rcEvent(event: Record<string, unknown>): { api_version: string; event: Record<string, unknown> } {
  return {
    api_version: '1.0',
    event: {
      type: 'INITIAL_PURCHASE',
      environment: 'PRODUCTION',
      price: 4.99,
      price_in_purchased_currency: 4.99,
      currency: 'USD',
      ...event,
    },
  };
}

export function sendWebhook(app: FastifyInstance, token: string, body: unknown): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/webhook/revenuecat',
    headers: { authorization: `Bearer ${token}` },
    payload: body as object,
  });
}
