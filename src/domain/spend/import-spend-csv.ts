// CLI `spend import`: a CSV file whose header names the columns of the spend endpoint's rows (any
// order; day, campaign_display_id and amount required). Rows go through upsertSpend in batches of
// 1,000 (progress after each); a bad line is skipped and reported with its line number. An empty
// cell counts as absent (an absent name keeps the stored one, absent counts are 0). Of the lines of
// one key, the last valid one wins and the earlier ones are reported as superseded, however far apart
// (upsertSpend sees one batch; a key repeated in another batch was counted as accepted twice). Each
// batch commits on its own; a failed batch stops the import with its lines named.
import { readFile } from 'node:fs/promises';
import type { Deps } from '../../deps.ts';
import { CsvError, parseCsv } from '../../lib/csv.ts';
import { InputError } from '../projects/input-error.ts';
import { requireProject } from '../projects/require-project.ts';
import { readSpendRow, SPEND_REASON } from './spend-row.ts';
import { upsertSpend } from './upsert-spend.ts';

export const SPEND_CSV_COLUMNS = [
  'day',
  'campaign_display_id',
  'ad_set_id',
  'ad_set_name',
  'creative_id',
  'creative_name',
  'keyword_id',
  'keyword_name',
  'network',
  'amount',
  'impressions',
  'clicks',
] as const;
const REQUIRED = ['day', 'campaign_display_id', 'amount'];
const BATCH = 1000;

export type SpendCsvResult = {
  file: string;
  rows: number;
  accepted: number;
  unchanged: number;
  rejected: { line: number; reason: string }[];
};

function header(fields: string[]): string[] {
  const names = fields.map((f) => f.trim().toLowerCase());
  const unknown = names.filter((n) => !(SPEND_CSV_COLUMNS as readonly string[]).includes(n));
  if (unknown.length > 0) {
    throw new InputError(`unknown CSV column(s): ${unknown.join(', ')} (columns: ${SPEND_CSV_COLUMNS.join(', ')})`);
  }
  const missing = REQUIRED.filter((r) => !names.includes(r));
  if (missing.length > 0) {
    throw new InputError(`the CSV header must name ${missing.join(', ')} (columns: ${SPEND_CSV_COLUMNS.join(', ')})`);
  }
  if (new Set(names).size !== names.length) {
    throw new InputError('the CSV header names a column twice');
  }
  return names;
}

async function readRecords(file: string) {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new InputError(`cannot read --file '${file}': ${(err as Error).message}`);
  }
  try {
    return parseCsv(text);
  } catch (err) {
    throw err instanceof CsvError ? new InputError(err.message) : err;
  }
}

type Line = { line: number; row: Record<string, string> };

/**
 * The lines another, later line of the file replaces: same day, campaign, ad set, creative, keyword
 * and network cell, and the later line valid. Rows whose network differs only by being left to the
 * campaign's default are still merged by upsertSpend within a batch.
 */
function supersededLines(lines: Line[]): Map<number, number> {
  const lastOf = new Map<string, number>();
  const superseded = new Map<number, number>();
  for (const { line, row } of lines) {
    const r = readSpendRow(row);
    if ('reason' in r) {
      continue;
    }
    const key = JSON.stringify([r.day, r.displayId, r.adSetId, r.creativeId, r.keywordId, r.network ?? null]);
    const earlier = lastOf.get(key);
    if (earlier !== undefined) {
      superseded.set(earlier, line);
    }
    lastOf.set(key, line);
  }
  return superseded;
}

export async function importSpendCsv(
  deps: Pick<Deps, 'sql' | 'now'>,
  projectId: string,
  file: string,
  progress: (done: number, total: number) => void = () => {},
): Promise<SpendCsvResult> {
  const project = await requireProject(deps, projectId);
  const [head, ...records] = await readRecords(file);
  if (!head) {
    throw new InputError(`--file '${file}' is empty (expected a header row)`);
  }
  const names = header(head.fields);
  const result: SpendCsvResult = { file, rows: records.length, accepted: 0, unchanged: 0, rejected: [] };
  const lines: Line[] = [];
  for (const r of records) {
    if (r.fields.length !== names.length) {
      result.rejected.push({ line: r.line, reason: `${r.fields.length} fields where the header has ${names.length}` });
      continue;
    }
    const cells = names.map((n, i) => [n, r.fields[i] ?? ''] as const).filter(([, v]) => v !== '');
    lines.push({ line: r.line, row: Object.fromEntries(cells) });
  }
  const superseded = supersededLines(lines);
  for (const [line, later] of superseded) {
    result.rejected.push({ line, reason: SPEND_REASON.duplicate(`line ${later}`) });
  }
  const kept = lines.filter((l) => !superseded.has(l.line));
  for (let offset = 0; offset < kept.length; offset += BATCH) {
    const good = kept.slice(offset, offset + BATCH);
    const lineOf = (i: number) => good[i]?.line ?? 0;
    const r = await upsertSpend(
      deps,
      project,
      good.map((g) => g.row),
      { source: 'csv', rowLabel: (i) => `line ${lineOf(i)}` },
    ).catch((err: Error) => {
      // Each batch commits on its own: say what is stored and that a re-run is safe.
      throw new Error(
        `the batch of lines ${lineOf(0)}–${lineOf(good.length - 1)} failed: ${err.message}. ` +
          `The ${offset.toLocaleString('en-US')} valid lines before it are stored; importing the same file again ` +
          'is safe (they come back unchanged).',
        { cause: err },
      );
    });
    result.accepted += r.accepted;
    result.unchanged += r.unchanged;
    result.rejected.push(...r.rejected.map((x) => ({ line: lineOf(x.index), reason: x.reason })));
    progress(Math.min(offset + BATCH, kept.length), kept.length);
  }
  result.rejected.sort((a, b) => a.line - b.line);
  return result;
}
