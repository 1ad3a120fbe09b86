// JSON-RPC 2.0 as MCP uses it: a message is a request (method and an id that is a string or an
// integer, never null: MCP basic "Requests"), a notification (method, no id), or a response to a
// request of ours (result or error; this server sends none, so any is only acknowledged). Anything
// else is an Invalid Request, answered with id null when no id can be read (JSON-RPC §5).
import { MSG } from '../../messages.ts';

export const RPC_PARSE_ERROR = -32700;
export const RPC_INVALID_REQUEST = -32600;
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_INVALID_PARAMS = -32602;

export type RpcId = string | number;
export type RpcParams = Record<string, unknown>;

export type RpcMessage =
  | { kind: 'request'; id: RpcId; method: string; params: RpcParams }
  | { kind: 'notification'; method: string }
  | { kind: 'response' }
  | { kind: 'invalid'; id: RpcId | null; message: string };

export type RpcError = { code: number; message: string; data?: unknown };
export type RpcAnswer =
  | { jsonrpc: '2.0'; id: RpcId; result: unknown }
  | { jsonrpc: '2.0'; id: RpcId | null; error: RpcError };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const isId = (v: unknown): v is RpcId =>
  (typeof v === 'string' && v.length <= 256) || (typeof v === 'number' && Number.isSafeInteger(v));

export function rpcResult(id: RpcId, result: unknown): RpcAnswer {
  return { jsonrpc: '2.0', id, result };
}

export function rpcError(id: RpcId | null, code: number, message: string, data?: unknown): RpcAnswer {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } };
}

export function classifyMessage(m: unknown): RpcMessage {
  if (!isRecord(m)) {
    return { kind: 'invalid', id: null, message: MSG.rpcInvalidRequest };
  }
  const hasId = Object.hasOwn(m, 'id');
  const id = hasId && isId(m.id) ? m.id : null;
  if (m.jsonrpc !== '2.0') {
    return { kind: 'invalid', id, message: MSG.rpcInvalidRequest };
  }
  if (typeof m.method !== 'string') {
    const response = hasId && (Object.hasOwn(m, 'result') || isRecord(m.error));
    return response ? { kind: 'response' } : { kind: 'invalid', id, message: MSG.rpcInvalidRequest };
  }
  // MCP params are an object (by-name); JSON-RPC's by-position array has no meaning for any method here.
  if (m.params !== undefined && !isRecord(m.params)) {
    return { kind: 'invalid', id, message: MSG.rpcInvalidRequest };
  }
  if (!hasId) {
    return { kind: 'notification', method: m.method };
  }
  if (id === null) {
    return { kind: 'invalid', id: null, message: MSG.rpcInvalidRequest };
  }
  return { kind: 'request', id, method: m.method, params: (m.params as RpcParams | undefined) ?? {} };
}
