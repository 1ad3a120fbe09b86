// Validates a schema document (CLI file or PUT body) and says what is wrong in one line: the first
// problem's path and zod's message, e.g. `rules.0.fine: Too big: expected number to be <=63`.
import { type SkanSchema, skanSchemaSchema } from './schema.ts';

export type SchemaCheck = { ok: true; schema: SkanSchema } | { ok: false; problem: string };

export function validateSkanSchema(raw: unknown): SchemaCheck {
  const r = skanSchemaSchema.safeParse(raw);
  if (r.success) {
    return { ok: true, schema: r.data };
  }
  const issue = r.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return { ok: false, problem: `${where}${issue?.message ?? 'invalid schema'}` };
}
