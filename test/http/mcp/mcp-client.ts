// A minimal MCP client for the tests of /mcp/<token>: JSON-RPC POSTs through app.inject, and tool
// calls that return the parsed text content (the tool's JSON). Tokens are issued through the CLI's
// domain verb, as an operator would.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Deps } from '../../../src/deps.ts';
import { createMcpToken } from '../../../src/domain/mcp/create-mcp-token.ts';
import type { TestProject } from '../../support/harness.ts';

export const VERSION = '2025-11-25';

export async function mcpToken(deps: Deps, p: TestProject, name = 'test'): Promise<string> {
  return (await createMcpToken(deps, p.project.id, { name })).token;
}

/** POSTs `body` (an object, or raw text) to the token's endpoint with the headers a client sends. */
export function rpc(
  app: FastifyInstance,
  token: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: `/mcp/${token}`,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': VERSION,
      ...headers,
    },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export type ToolAnswer = { isError: boolean; data: Record<string, unknown>; structured: unknown };

let nextId = 1;

/** tools/call; fails loudly unless the answer is a JSON-RPC result with one text content. */
export async function callTool(
  app: FastifyInstance,
  token: string,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolAnswer> {
  const id = nextId++;
  const res = await rpc(app, token, { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
  if (res.statusCode !== 200) {
    throw new Error(`tools/call ${name} answered ${res.statusCode}: ${res.body}`);
  }
  const body = res.json() as {
    id: number;
    result?: { content: { type: string; text: string }[]; isError: boolean; structuredContent?: unknown };
  };
  const content = body.result?.content;
  if (body.id !== id || !content || content.length !== 1 || content[0]?.type !== 'text') {
    throw new Error(`tools/call ${name} answered ${res.body}`);
  }
  return {
    isError: body.result?.isError ?? false,
    data: JSON.parse(content[0].text) as Record<string, unknown>,
    structured: body.result?.structuredContent,
  };
}
