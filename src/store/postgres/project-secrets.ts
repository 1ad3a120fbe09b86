// Per-project secrets, stored only in their encrypted form (src/lib/secrets.ts seals and opens
// them; this file never sees clear text).
import type { Sql } from './pool.ts';

export async function updateMetaReferrerKeyEnc(sql: Sql, projectId: string, enc: string | null): Promise<boolean> {
  const res = await sql`UPDATE projects SET meta_referrer_key_enc = ${enc} WHERE id = ${projectId}`;
  return res.count === 1;
}

export async function findMetaReferrerKeyEnc(sql: Sql, projectId: string): Promise<string | null> {
  const [row] = await sql<{ meta_referrer_key_enc: string | null }[]>`
    SELECT meta_referrer_key_enc FROM projects WHERE id = ${projectId}`;
  return row?.meta_referrer_key_enc ?? null;
}
