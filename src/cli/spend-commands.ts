// `spend import` (CSV) and `spend sandbox` (the sandbox_ads generator). Both write through the same
// upsert as PUT /api/v1/spend, touching Postgres only: the fact writer carries the changes to
// ClickHouse, so these also run beside a server.
import { generateSandboxSpend } from '../domain/spend/generate-sandbox-spend.ts';
import { importSpendCsv, SPEND_CSV_COLUMNS } from '../domain/spend/import-spend-csv.ts';
import { escapeControlChars } from '../lib/control-chars.ts';
import type { CommandSpec } from './commands.ts';

const PROJECT = { project: { type: 'string', required: true, description: 'project id' } } as const;
const n = (v: number) => v.toLocaleString('en-US');
const BAR_WIDTH = 10;
/** How many rejected lines the text output lists (--json lists all). */
const LIST_MAX = 100;

/** `\r[#####     ] 52% 5,200/10,000 rows`: redrawn in place on a terminal (see main.ts). */
export function progressBar(done: number, total: number): string {
  const pct = total === 0 ? 100 : Math.floor((done / total) * 100);
  const filled = Math.floor(pct / (100 / BAR_WIDTH));
  return `\r[${'#'.repeat(filled)}${' '.repeat(BAR_WIDTH - filled)}] ${pct}% ${n(done)}/${n(total)} rows`;
}

function listed<T>(items: T[], show: (x: T) => string): string {
  // A reason quotes the file's cell, which can hold anything: one line each.
  const lines = items.slice(0, LIST_MAX).map((x) => `  ${escapeControlChars(show(x))}`);
  if (items.length > LIST_MAX) {
    lines.push(`  … and ${n(items.length - LIST_MAX)} more (--json lists all)`);
  }
  return lines.length > 0 ? `\n${lines.join('\n')}` : '';
}

export const SPEND_COMMANDS: CommandSpec[] = [
  {
    path: ['spend', 'import'],
    summary: `upsert ad spend from a CSV file with a header row (columns: ${SPEND_CSV_COLUMNS.join(', ')})`,
    needs: 'postgres',
    flags: { ...PROJECT, file: { type: 'string', required: true, description: 'CSV file' } },
    run: async (deps, f, progress) => {
      const r = await importSpendCsv(
        { sql: deps.sql, now: Date.now },
        String(f.project),
        String(f.file),
        (done, total) => {
          // A bar only for files of more than one batch: small files finish at once.
          if (total > 1000) {
            progress(progressBar(done, total));
          }
        },
      );
      return {
        json: {
          project_id: String(f.project),
          file: r.file,
          rows: r.rows,
          accepted: r.accepted,
          unchanged: r.unchanged,
          rejected: r.rejected,
        },
        text: `${n(r.rows)} rows: ${n(r.accepted)} accepted, ${n(r.unchanged)} unchanged, ${n(r.rejected.length)} rejected${listed(
          r.rejected,
          (x) => `line ${x.line}: ${x.reason}`,
        )}`,
      };
    },
  },
  {
    path: ['spend', 'sandbox'],
    summary: 'generate plausible daily spend, impressions and clicks of the sandbox_ads network for a campaign',
    needs: 'postgres',
    flags: {
      ...PROJECT,
      campaign: { type: 'string', required: true, description: 'campaign display id' },
      days: { type: 'string', description: 'days up to today in the project zone (default 30)' },
      seed: { type: 'string', description: 'generator seed; the same seed gives the same numbers (default 1)' },
    },
    run: async (deps, f) => {
      const r = await generateSandboxSpend({ sql: deps.sql, now: Date.now }, String(f.project), {
        displayId: String(f.campaign),
        days: typeof f.days === 'string' ? f.days : undefined,
        seed: typeof f.seed === 'string' ? f.seed : undefined,
      });
      return {
        json: {
          project_id: String(f.project),
          campaign_display_id: String(f.campaign),
          network: 'SANDBOX_ADS',
          from: r.from,
          to: r.to,
          seed: r.seed,
          rows: r.rows,
          accepted: r.accepted,
          unchanged: r.unchanged,
          rejected: r.rejected,
        },
        text: `sandbox_ads spend for ${String(f.campaign)}, ${r.from} to ${r.to} (seed ${r.seed}): ${n(r.rows)} rows, ${n(
          r.accepted,
        )} accepted, ${n(r.unchanged)} unchanged${listed(r.rejected, (x) => `row ${x.index}: ${x.reason}`)}`,
      };
    },
  },
];
