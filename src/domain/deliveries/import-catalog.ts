// `catalog import`: a CSV whose header has an `id` (or `product_id`, or Meta's `content_id`) column;
// the ids are the project's catalog, against which forwarded product ids are matched.
import { readFile } from 'node:fs/promises';
import type { PgDeps } from '../../deps.ts';
import { CsvError, parseCsv } from '../../lib/csv.ts';
import { insertCatalogProducts } from '../../store/postgres/connections.ts';
import { InputError } from '../projects/input-error.ts';
import { requireProject } from '../projects/require-project.ts';

const ID_COLUMNS = ['id', 'product_id', 'content_id'];
/** Longer ids are refused: a product id is a SKU, and the catalog's key holds at most ~2.7 KB. */
export const MAX_PRODUCT_ID_CHARS = 500;

export async function importCatalog(
  deps: Pick<PgDeps, 'sql'>,
  projectId: string,
  file: string,
): Promise<{ rows: number; added: number }> {
  await requireProject(deps, projectId);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new InputError(`cannot read --file '${file}': ${(err as Error).message}`);
  }
  let records: ReturnType<typeof parseCsv>;
  try {
    records = parseCsv(text);
  } catch (err) {
    throw err instanceof CsvError ? new InputError(err.message) : err;
  }
  const [head, ...rows] = records;
  const col = head ? head.fields.findIndex((f) => ID_COLUMNS.includes(f.trim().toLowerCase())) : -1;
  if (col < 0) {
    throw new InputError(`the CSV header needs one of the columns ${ID_COLUMNS.join(', ')}`);
  }
  const cells = rows.map((r) => (r.fields[col] ?? '').trim());
  const bad = cells.findIndex((id) => [...id].length > MAX_PRODUCT_ID_CHARS || id.includes('\u0000'));
  if (bad >= 0) {
    throw new InputError(
      `data row ${bad + 1}: a product id is at most ${MAX_PRODUCT_ID_CHARS} characters, without NUL; nothing was imported`,
    );
  }
  const ids = [...new Set(cells.filter((id) => id !== ''))];
  let added = 0;
  for (let i = 0; i < ids.length; i += 5000) {
    added += await insertCatalogProducts(deps.sql, projectId, ids.slice(i, i + 5000));
  }
  return { rows: rows.length, added };
}
