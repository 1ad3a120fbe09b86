// CLI `spend import`: a CSV file whose header names the columns of the spend endpoint's rows (any
// order; day, campaign_display_id and amount required). Rows go through upsertSpend in batches of
// 1,000 (progress after each); a bad line is skipped and reported with its line number. An empty
// cell counts as absent (an absent name keeps the stored one, absent counts are 0). Of the lines of
// one key, the last valid one wins and the earlier ones are reported as superseded, however far apart
// (upsertSpend sees one batch; a key repeated in another batch was counted as accepted twice). Each
// batch commits on its own; a failed batch stops the import with its lines named.
import { createHash } from 'node:crypto';
import { constants, createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import type { Deps } from '../../deps.ts';
import { CsvError, CsvParser, type CsvRecord } from '../../lib/csv.ts';
import { findSpendCampaigns } from '../../store/postgres/spend-rows.ts';
import { InputError } from '../projects/input-error.ts';
import { requireProject } from '../projects/require-project.ts';
import { readSpendRow, SPEND_REASON, SPEND_ROW_FIELDS } from './spend-row.ts';
import { upsertSpend } from './upsert-spend.ts';

/** The CSV's columns are the row's fields (domain/spend/spend-row.ts). */
export const SPEND_CSV_COLUMNS = SPEND_ROW_FIELDS;
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

/**
 * The file's records, streamed: read in chunks and handed out a batch at a time, so a file of
 * millions of lines is never held whole (the whole text, parsed, took about 2.5 KB a line).
 */
async function* records(file: string): AsyncGenerator<CsvRecord[]> {
  const parser = new CsvParser();
  try {
    const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 });
    try {
      for await (const chunk of stream) {
        yield parser.push(chunk as string);
      }
    } catch (err) {
      throw new InputError(`cannot read --file '${file}': ${(err as Error).message}`);
    }
    yield parser.end();
  } catch (err) {
    throw err instanceof CsvError ? new InputError(err.message) : err;
  }
}

type Line = { line: number; row: Record<string, string> };

/** The file's data lines a batch at a time (after its header), with the lines of a wrong width. */
async function* lines(
  file: string,
  onHeader: (fields: string[]) => string[],
  onBadWidth: (line: number, fields: number, expected: number) => void,
): AsyncGenerator<Line[]> {
  let names: string[] | undefined;
  for await (const batch of records(file)) {
    const out: Line[] = [];
    for (const r of batch) {
      if (!names) {
        names = onHeader(r.fields);
        continue;
      }
      if (r.fields.length !== names.length) {
        onBadWidth(r.line, r.fields.length, names.length);
        continue;
      }
      const cells = names.map((n, i) => [n, r.fields[i] ?? ''] as const).filter(([, v]) => v !== '');
      out.push({ line: r.line, row: Object.fromEntries(cells) });
    }
    yield out;
  }
  if (!names) {
    throw new InputError(`--file '${file}' is empty (expected a header row)`);
  }
}

/** A short fixed-size digest of a spend key: the first pass keeps one per key of the file. */
const keyDigest = (key: string): string => createHash('sha1').update(key).digest('base64').slice(0, 16);

/** The networks of the file's campaigns, looked up a batch at a time ('' for none; unknown ids are absent). */
async function campaignNetworks(
  deps: Pick<Deps, 'sql'>,
  projectId: string,
  known: Map<string, string>,
  displayIds: string[],
): Promise<void> {
  const missing = [...new Set(displayIds)].filter((id) => !known.has(id));
  if (missing.length > 0) {
    for (const [id, c] of await findSpendCampaigns(deps.sql, projectId, missing)) {
      known.set(id, c.network);
    }
  }
}

/**
 * First pass: the lines another, later line of the file replaces (same day, campaign, ad set,
 * creative, keyword and network, and the later line valid), and how many data lines the file has.
 * The network is the one upsertSpend keys on: the cell, else the campaign's, so a line that names
 * the campaign's network replaces one that leaves it out.
 */
async function supersededLines(
  deps: Pick<Deps, 'sql'>,
  projectId: string,
  file: string,
): Promise<{ superseded: Map<number, number>; rows: number; kept: number }> {
  const lastOf = new Map<string, number>();
  const superseded = new Map<number, number>();
  const networks = new Map<string, string>();
  let rows = 0;
  let wellFormed = 0;
  const count = () => {
    rows += 1;
  };
  for await (const batch of lines(file, header, count)) {
    const valid = batch.map(({ line, row }) => ({ line, r: readSpendRow(row) }));
    await campaignNetworks(
      deps,
      projectId,
      networks,
      valid.flatMap(({ r }) => ('reason' in r ? [] : [r.displayId])),
    );
    for (const { line, r } of valid) {
      rows += 1;
      wellFormed += 1;
      if ('reason' in r) {
        continue;
      }
      const network = r.network ?? networks.get(r.displayId) ?? '';
      const key = keyDigest(JSON.stringify([r.day, r.displayId, r.adSetId, r.creativeId, r.keywordId, network]));
      const earlier = lastOf.get(key);
      if (earlier !== undefined) {
        superseded.set(earlier, line);
      }
      lastOf.set(key, line);
    }
  }
  return { superseded, rows, kept: wellFormed - superseded.size };
}

export async function importSpendCsv(
  deps: Pick<Deps, 'sql' | 'now'>,
  projectId: string,
  file: string,
  progress: (done: number, total: number) => void = () => {},
): Promise<SpendCsvResult> {
  const project = await requireProject(deps, projectId);
  try {
    await access(file, constants.R_OK);
  } catch (err) {
    throw new InputError(`cannot read --file '${file}': ${(err as Error).message}`);
  }
  const { superseded, rows, kept } = await supersededLines(deps, project.id, file);
  const result: SpendCsvResult = { file, rows, accepted: 0, unchanged: 0, rejected: [] };
  for (const [line, later] of superseded) {
    result.rejected.push({ line, reason: SPEND_REASON.duplicate(`line ${later}`) });
  }
  const badWidth = (line: number, fields: number, expected: number) =>
    result.rejected.push({ line, reason: `${fields} fields where the header has ${expected}` });
  // Second pass: the kept lines, upserted a batch at a time.
  let pending: Line[] = [];
  let done = 0;
  const flush = async (good: Line[]) => {
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
          `The ${done.toLocaleString('en-US')} valid lines before it are stored; importing the same file again ` +
          'is safe (they come back unchanged).',
        { cause: err },
      );
    });
    result.accepted += r.accepted;
    result.unchanged += r.unchanged;
    result.rejected.push(...r.rejected.map((x) => ({ line: lineOf(x.index), reason: x.reason })));
    done += good.length;
    progress(done, kept);
  };
  for await (const batch of lines(file, header, badWidth)) {
    pending.push(...batch.filter((l) => !superseded.has(l.line)));
    while (pending.length >= BATCH) {
      await flush(pending.slice(0, BATCH));
      pending = pending.slice(BATCH);
    }
  }
  if (pending.length > 0) {
    await flush(pending);
  }
  result.rejected.sort((a, b) => a.line - b.line);
  return result;
}
