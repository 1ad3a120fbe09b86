// Generates the project's RevenueCat webhook authorization token (product notes "RevenueCat":
// "Generate Authorization Token"), or a new one in its place: the earlier token stops working at
// once. The token is returned here only; Postgres keeps its SHA-256, as for server keys.
import { randomBytes } from 'node:crypto';
import type { Deps } from '../../deps.ts';
import { hashKey } from '../../lib/ids.ts';
import { type RevenueCatConnection, upsertRevenueCatToken } from '../../store/postgres/revenuecat-connections.ts';

/** `rc_` and 43 URL-safe characters: fits RevenueCat's authorization header field as it is. */
const newRevenueCatToken = (): string => `rc_${randomBytes(32).toString('base64url')}`;

export async function issueRevenueCatToken(
  deps: Pick<Deps, 'sql' | 'now'>,
  projectId: string,
): Promise<RevenueCatConnection & { token: string; rotated: boolean }> {
  const token = newRevenueCatToken();
  const c = await upsertRevenueCatToken(
    deps.sql,
    { projectId, tokenHash: hashKey(token), tokenPrefix: token.slice(0, 7) },
    new Date(deps.now()),
  );
  return { ...c, token, rotated: c.rotatedAt !== null };
}
