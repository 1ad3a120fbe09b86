// OpenAPI operations of the read-only MCP server (routes/mcp; product-notes "MCP"): the Streamable
// HTTP transport's one endpoint, with the token in the path. The JSON-RPC methods and the tools are
// MCP's own discovery (initialize, tools/list), summarised here.
import { z } from 'zod';
import type { Operation } from './openapi.ts';
import { SERVER_FAILURES, UNSUPPORTED_MEDIA_TYPE } from './openapi-responses.ts';

const params = z.object({
  token: z
    .string()
    .meta({ description: 'an MCP token of the project (npm run cli -- mcp create-token); it names the project' }),
});

const rpcId = z.union([z.string(), z.int()]);

const rpcMessage = z.looseObject({
  jsonrpc: z.literal('2.0'),
  id: rpcId.optional().meta({ description: 'a string or an integer; absent on a notification' }),
  method: z.string().optional().meta({ description: 'initialize, ping, tools/list, tools/call, notifications/…' }),
  params: z.looseObject({}).optional(),
});

const rpcErrorObject = z.looseObject({ code: z.int(), message: z.string(), data: z.unknown().optional() });

const rpcAnswer = z.union([
  z.looseObject({ jsonrpc: z.literal('2.0'), id: rpcId, result: z.looseObject({}) }),
  z.looseObject({ jsonrpc: z.literal('2.0'), id: rpcId.nullable(), error: rpcErrorObject }),
]);

const AUTH_FAILURES = {
  '401': '`MCP token invalid or revoked.`: an unknown or revoked token',
  '403': '`Origin not allowed for the MCP endpoint.`: an Origin header naming another host (DNS rebinding)',
  '429': '`Rate limit exceeded. Please try again later.` (per source IP, or 30 per second per token); Retry-After: 1',
} as const;

const POST_ONLY = {
  '405': '`Method not allowed. POST JSON-RPC messages to this MCP endpoint; it opens no event stream.` (Allow: POST)',
} as const;

const TOOLS = 'get_project_info, get_project_stats, list_campaigns, list_events, lookup_attribution, get_billing_usage';

export const MCP_OPERATIONS: Operation[] = [
  {
    method: 'post',
    path: '/mcp/{token}',
    summary: `MCP server (Streamable HTTP, stateless, read-only): one JSON-RPC 2.0 message per POST (a batch of up to 10 at protocol version 2025-03-26 only). Methods: initialize (versions 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05), ping, tools/list, tools/call. Tools: ${TOOLS}. Answers application/json, never an event stream; no Mcp-Session-Id`,
    tag: 'mcp',
    auth: 'none',
    params,
    body: z.union([rpcMessage, z.array(rpcMessage).min(1).max(10)]),
    responses: {
      '200': {
        description:
          'the JSON-RPC response to the request (an array for a batch); a tool failure the caller can fix is a result with isError: true',
        schema: z.union([rpcAnswer, z.array(rpcAnswer)]),
      },
      '202': {
        description: 'a notification or a response was accepted: no body',
        schema: z.never().meta({ description: 'no body' }),
      },
      '400': {
        description:
          'a JSON-RPC error with id null: -32700 Parse error (not JSON), -32600 Invalid Request (not a JSON-RPC message, a batch at another protocol version, an unsupported MCP-Protocol-Version header)',
        schema: rpcAnswer,
      },
      ...AUTH_FAILURES,
      '413': '`Request body too large.`: over BODY_LIMIT_V1_BYTES (256 KiB by default)',
      '415': UNSUPPORTED_MEDIA_TYPE,
      ...SERVER_FAILURES,
    },
  },
  {
    method: 'get',
    path: '/mcp/{token}',
    summary: 'MCP server: no server-initiated event stream is offered (Streamable HTTP allows 405)',
    tag: 'mcp',
    auth: 'none',
    params,
    responses: { ...POST_ONLY, '429': AUTH_FAILURES['429'] },
  },
  {
    method: 'delete',
    path: '/mcp/{token}',
    summary: 'MCP server: there is no session to end (stateless; Streamable HTTP allows 405)',
    tag: 'mcp',
    auth: 'none',
    params,
    responses: { ...POST_ONLY, '429': AUTH_FAILURES['429'] },
  },
];
