// The MCP methods this server answers: initialize (protocol version negotiation, capabilities
// {tools: {}}), ping, tools/list and tools/call (MCP lifecycle and server/tools). Any other method is
// Method not found. Stateless: nothing is kept between requests, so tools/list and tools/call work
// without an earlier initialize on the same connection (the token alone names the project).
// Tool failures the caller can fix (arguments, a refused value, billing suspended) are tool results
// with isError: true and the house envelope as text; protocol mistakes (no such tool, malformed
// params) are JSON-RPC errors -32602 (MCP tools "Error Handling").
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import {
  RPC_INVALID_PARAMS,
  RPC_METHOD_NOT_FOUND,
  type RpcAnswer,
  type RpcId,
  type RpcParams,
  rpcError,
  rpcResult,
} from './json-rpc.ts';
import { TOOL_LIST, TOOLS, type ToolContext } from './tools.ts';

/** Newest first; initialize answers the client's version when listed here, else the newest. */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

/** The one version whose JSON-RPC takes batches (2025-03-26 added them; 2025-06-18 removed them). */
export const BATCH_VERSION = '2025-03-26';

export const SERVER_INFO = {
  name: 'attribution-service-mcp',
  title: 'Attribution service (read-only)',
  version: '1.0.0',
};

type Request = { id: RpcId; method: string; params: RpcParams };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function initialize(ctx: ToolContext, req: Request): RpcAnswer {
  const asked = req.params.protocolVersion;
  if (typeof asked !== 'string') {
    return rpcError(req.id, RPC_INVALID_PARAMS, MSG.rpcInvalidParams, { reason: 'protocolVersion must be a string' });
  }
  const known = (PROTOCOL_VERSIONS as readonly string[]).includes(asked);
  return rpcResult(req.id, {
    protocolVersion: known ? asked : PROTOCOL_VERSIONS[0],
    capabilities: { tools: {} },
    serverInfo: SERVER_INFO,
    instructions: `Read-only attribution data of the project "${ctx.project.name}" (${ctx.project.id}). Report days are in its time zone, ${ctx.project.timezone}; money is in ${ctx.project.displayCurrency}.`,
  });
}

const toolResult = (data: Record<string, unknown>, isError: boolean) => ({
  content: [{ type: 'text', text: JSON.stringify(data) }],
  ...(isError ? {} : { structuredContent: data }),
  isError,
});

const argumentProblems = (issues: { path: PropertyKey[]; message: string }[]) =>
  issues.map((i) => `${i.path.map(String).join('.') || 'arguments'}: ${i.message}`).join('; ');

async function callTool(ctx: ToolContext, req: Request): Promise<RpcAnswer> {
  const { name, arguments: args = {} } = req.params;
  if (typeof name !== 'string') {
    return rpcError(req.id, RPC_INVALID_PARAMS, MSG.rpcInvalidParams, { reason: 'name must be a string' });
  }
  const tool = TOOLS.find((t) => t.name === name);
  if (!tool) {
    return rpcError(req.id, RPC_INVALID_PARAMS, MSG.rpcUnknownTool(name));
  }
  if (!isRecord(args)) {
    return rpcError(req.id, RPC_INVALID_PARAMS, MSG.rpcInvalidParams, { reason: 'arguments must be an object' });
  }
  // Keys and types only: the values' own rules are the matching endpoint's (tool-inputs.ts).
  const parsed = tool.check.safeParse(args);
  if (!parsed.success) {
    const msg = MSG.mcpToolArguments(argumentProblems(parsed.error.issues));
    return rpcResult(req.id, toolResult({ msg, status: 400 }, true));
  }
  try {
    return rpcResult(req.id, toolResult(await tool.run(ctx, parsed.data), false));
  } catch (err) {
    if (err instanceof ApiError) {
      return rpcResult(req.id, toolResult({ msg: err.msg, status: err.status, ...err.extra }, true));
    }
    throw err;
  }
}

/** The answer to one request (never a notification: those get none). */
export function answerRequest(ctx: ToolContext, req: Request): Promise<RpcAnswer> | RpcAnswer {
  switch (req.method) {
    case 'initialize':
      return initialize(ctx, req);
    case 'ping':
      return rpcResult(req.id, {});
    case 'tools/list':
      return rpcResult(req.id, { tools: TOOL_LIST });
    case 'tools/call':
      return callTool(ctx, req);
    default:
      return rpcError(req.id, RPC_METHOD_NOT_FOUND, MSG.rpcMethodNotFound);
  }
}
