// MCP token commands (product-notes "MCP": a read-only MCP server with the token in the URL, at most
// 10 tokens per project). Listed in COMMANDS (commands.ts). Only `mcp create-token` prints a token,
// once; listings show ids, labels and times.
import { createMcpToken } from '../domain/mcp/create-mcp-token.ts';
import { listMcpTokens } from '../domain/mcp/list-mcp-tokens.ts';
import { mcpPath } from '../domain/mcp/mcp-token-limits.ts';
import { revokeMcpToken } from '../domain/mcp/revoke-mcp-token.ts';
import type { McpToken } from '../store/postgres/mcp-tokens.ts';
import { opt, PROJECT, str } from './command-kit.ts';
import type { CommandSpec } from './commands.ts';
import { table } from './table.ts';

const tokenJson = (t: McpToken) => ({
  id: t.id,
  name: t.name,
  prefix: t.prefix,
  created_at: t.createdAt.toISOString(),
  last_used_at: t.lastUsedAt?.toISOString() ?? null,
});

export const MCP_COMMANDS: CommandSpec[] = [
  {
    path: ['mcp', 'create-token'],
    summary: "issue a read-only MCP token (at most 10 per project); prints the server's URL with it (shown once)",
    needs: 'postgres',
    flags: { ...PROJECT, name: { type: 'string', description: 'a label for the token (who or what uses it)' } },
    run: async (deps, f) => {
      const { token, record } = await createMcpToken(deps, str(f, 'project'), { name: opt(f, 'name') });
      const path = mcpPath(token);
      const url = `${deps.config.publicUrl.replace(/\/+$/, '')}${path}`;
      return {
        json: { project_id: record.projectId, ...tokenJson(record), path, url },
        text: `MCP token ${record.id}${record.name ? ` (${record.name})` : ''} for project ${record.projectId}\n  url:  ${url}\n  path: ${path}\n  (the token is part of the URL and is shown only now; anyone with the URL reads this project's data)`,
      };
    },
  },
  {
    path: ['mcp', 'list-tokens'],
    summary: "list a project's live MCP tokens (never the tokens themselves)",
    needs: 'postgres',
    flags: PROJECT,
    run: async (deps, f) => {
      const tokens = await listMcpTokens(deps, str(f, 'project'));
      return {
        json: tokens.map(tokenJson),
        text: table(
          ['id', 'name', 'prefix', 'created_at', 'last_used_at'],
          tokens.map((t) => [
            String(t.id),
            t.name,
            `${t.prefix}…`,
            t.createdAt.toISOString(),
            t.lastUsedAt?.toISOString() ?? 'never',
          ]),
        ),
      };
    },
  },
  {
    path: ['mcp', 'revoke-token'],
    summary: 'revoke an MCP token; its URL answers 401 from the next request on',
    needs: 'postgres',
    flags: { ...PROJECT, id: { type: 'string', required: true, description: 'token id (see: mcp list-tokens)' } },
    run: async (deps, f) => {
      const t = await revokeMcpToken(deps, str(f, 'project'), str(f, 'id'));
      return {
        json: { project_id: t.projectId, ...tokenJson(t), revoked: true },
        text: `MCP token ${t.id}${t.name ? ` (${t.name})` : ''} revoked`,
      };
    },
  },
];
