// Saves a validated schema as the project's next version; installs are re-evaluated against it on
// their next activity (values already answered are never lowered).
import type { PgDeps } from '../../deps.ts';
import { insertSkanSchema, type StoredSkanSchema } from '../../store/postgres/skan.ts';
import type { SkanSchema } from './schema.ts';

export function setSkanSchema(
  deps: Pick<PgDeps, 'sql'>,
  projectId: string,
  schema: SkanSchema,
): Promise<StoredSkanSchema> {
  return insertSkanSchema(deps.sql, projectId, schema);
}
