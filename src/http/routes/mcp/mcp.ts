// The read-only MCP server (product-notes "MCP"), on the Streamable HTTP transport (MCP basic/
// transports), stateless: POST /mcp/<token> takes one JSON-RPC message (or, at protocol version
// 2025-03-26 only, a batch) and answers application/json: the response to a request, or 202 with no
// body for notifications and responses. No session (no Mcp-Session-Id) and no server-initiated
// stream: GET (the stream) and DELETE (ending a session) answer 405, as the transport allows.
// JSON the parser refuses is JSON-RPC's -32700, not the house 400: this scope has its own parser.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { projectOf } from '../../auth/service-key.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { ipRateLimit } from '../../rate-limit.ts';
import { chargeBatch, mcpToken } from './auth.ts';
import { answerRequest, BATCH_VERSION, PROTOCOL_VERSIONS } from './dispatch.ts';
import {
  classifyMessage,
  RPC_INVALID_REQUEST,
  RPC_PARSE_ERROR,
  type RpcAnswer,
  type RpcMessage,
  rpcError,
} from './json-rpc.ts';
import type { ToolContext } from './tools.ts';

/** The body when it is not JSON (or empty): told apart by identity. */
const UNPARSABLE = Object.freeze({ unparsable: true });

/** Most messages in one batch: each can be a tool call (and each counts against the token's rate limit). */
export const MAX_BATCH = 10;

function registerRpcJsonParser(app: FastifyInstance): void {
  const { onProtoPoisoning = 'error', onConstructorPoisoning = 'error' } = app.initialConfig;
  const parseJson = app.getDefaultJsonParser(onProtoPoisoning, onConstructorPoisoning);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body: string, done) => {
    if (body.length === 0) {
      done(null, UNPARSABLE);
      return;
    }
    parseJson(req, body, (err: Error | null, value?: unknown) => done(null, err ? UNPARSABLE : value));
  });
}

type Answer = { status: 200 | 202 | 400; body?: RpcAnswer | RpcAnswer[] };

async function answerOne(ctx: ToolContext, m: RpcMessage): Promise<Answer> {
  switch (m.kind) {
    case 'invalid':
      return { status: 400, body: rpcError(m.id, RPC_INVALID_REQUEST, m.message) };
    case 'notification':
    case 'response':
      return { status: 202 };
    case 'request':
      return { status: 200, body: await answerRequest(ctx, m) };
  }
}

const badRequest = (message: string): Answer => ({ status: 400, body: rpcError(null, RPC_INVALID_REQUEST, message) });

async function answerBatch(ctx: ToolContext, req: FastifyRequest, batch: unknown[], version: string): Promise<Answer> {
  if (version !== BATCH_VERSION) {
    return badRequest(MSG.rpcBatchNotAllowed(version));
  }
  if (batch.length === 0 || batch.length > MAX_BATCH) {
    return badRequest(MSG.rpcInvalidRequest);
  }
  await chargeBatch(ctx.deps, req, batch.length);
  const answers: RpcAnswer[] = [];
  for (const item of batch) {
    const m = classifyMessage(item);
    if (m.kind === 'request' && m.method === 'initialize') {
      answers.push(rpcError(m.id, RPC_INVALID_REQUEST, MSG.rpcInitializeInBatch));
      continue;
    }
    const a = await answerOne(ctx, m);
    if (a.body !== undefined && !Array.isArray(a.body)) {
      answers.push(a.body);
    }
  }
  return answers.length === 0 ? { status: 202 } : { status: 200, body: answers };
}

/** The MCP-Protocol-Version header; absent, the transport says to assume 2025-03-26. */
function protocolVersion(req: FastifyRequest): string {
  const v = req.headers['mcp-protocol-version'];
  return typeof v === 'string' ? v.trim() : BATCH_VERSION;
}

async function answerPost(deps: Deps, req: FastifyRequest): Promise<Answer> {
  const ctx = { deps, project: projectOf(req) };
  const body = req.body;
  // JSON `null` parsed fine: like `42`, it is a message that is no request (-32600), not a Parse error.
  if (body === UNPARSABLE || body === undefined) {
    return { status: 400, body: rpcError(null, RPC_PARSE_ERROR, MSG.rpcParseError) };
  }
  const version = protocolVersion(req);
  const single = Array.isArray(body) ? undefined : classifyMessage(body);
  // initialize negotiates the version, so only the later messages are held to the header's.
  const initializing = single?.kind === 'request' && single.method === 'initialize';
  if (!initializing && !(PROTOCOL_VERSIONS as readonly string[]).includes(version)) {
    return badRequest(MSG.rpcUnsupportedVersion(version));
  }
  return single ? answerOne(ctx, single) : answerBatch(ctx, req, body as unknown[], version);
}

export async function registerMcpRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  await app.register(async (mcp) => {
    mcp.addHook('onRequest', ipRateLimit(deps));
    mcp.decorateRequest('mcpTokenId', null);
    registerRpcJsonParser(mcp);
    mcp.post('/mcp/:token', { preHandler: mcpToken(deps) }, async (req, reply: FastifyReply) => {
      const a = await answerPost(deps, req);
      return a.body === undefined ? reply.code(a.status).send() : reply.code(a.status).send(a.body);
    });
    const postOnly = async () => {
      throw new ApiError(405, MSG.mcpPostOnly, undefined, { allow: 'POST' });
    };
    mcp.get('/mcp/:token', postOnly);
    mcp.delete('/mcp/:token', postOnly);
  });
}
