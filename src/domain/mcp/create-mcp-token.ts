// Issues an MCP token for a project (operator CLI). The token is returned once and only its SHA-256
// is stored. A project holds at most MAX_LIVE_MCP_TOKENS live tokens: the count and the insert run
// under the project's row lock, so two CLI processes at once cannot both take the tenth place.
import type { PgDeps } from '../../deps.ts';
import { hashKey } from '../../lib/ids.ts';
import { charLength } from '../../lib/validate.ts';
import { countLiveMcpTokens, insertMcpToken, type McpToken } from '../../store/postgres/mcp-tokens.ts';
import { asSql } from '../../store/postgres/pool.ts';
import { lockProjectRow } from '../../store/postgres/projects.ts';
import { InputError } from '../projects/input-error.ts';
import { requireProject } from '../projects/require-project.ts';
import { MAX_LIVE_MCP_TOKENS, MCP_TOKEN_PREFIX_CHARS, newMcpToken } from './mcp-token-limits.ts';

const NAME_MAX = 100;

function tokenName(raw: string | undefined): string {
  const name = (raw ?? '').trim();
  // A label shows up in listings and terminals: no control characters (escape sequences).
  if (charLength(name) > NAME_MAX || /\p{Cc}/u.test(name)) {
    throw new InputError(`--name must be at most ${NAME_MAX} characters, without control characters`);
  }
  return name;
}

export async function createMcpToken(
  deps: Pick<PgDeps, 'sql'>,
  projectId: string,
  input: { name?: string },
): Promise<{ token: string; record: McpToken }> {
  await requireProject(deps, projectId);
  const name = tokenName(input.name);
  const token = newMcpToken();
  const record = await deps.sql.begin(async (tx) => {
    await lockProjectRow(asSql(tx), projectId);
    if ((await countLiveMcpTokens(asSql(tx), projectId)) >= MAX_LIVE_MCP_TOKENS) {
      throw new InputError(
        `project '${projectId}' already has ${MAX_LIVE_MCP_TOKENS} MCP tokens, the most it may hold; revoke one first (see: mcp list-tokens)`,
      );
    }
    return insertMcpToken(asSql(tx), {
      projectId,
      name,
      tokenHash: hashKey(token),
      prefix: token.slice(0, MCP_TOKEN_PREFIX_CHARS),
    });
  });
  return { token, record };
}
