// The results table printed on stdout: one row per figure, with its same-run ceiling, the ratio,
// the target verdict and the change of the ratio against the committed baseline.
import type { Row } from './aggregate.ts';
import { type Comparison, REGRESSION_THRESHOLD, rowKey } from './results.ts';

const thousands = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export function formatNumber(x: number | null, unit: string): string {
  if (x === null || !Number.isFinite(x)) {
    return '—';
  }
  if (unit === 'ms') {
    return `${x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : thousands.format(x)} ms`;
  }
  return `${thousands.format(x)} ${unit}`;
}

export function formatRatio(r: number | null): string {
  if (r === null || !Number.isFinite(r)) {
    return '—';
  }
  return `${r < 10 ? r.toFixed(2) : r.toFixed(1)}×`;
}

function formatChange(c: Comparison | undefined): string {
  if (!c) {
    return '—';
  }
  const pct = `${c.change >= 0 ? '+' : '−'}${Math.abs(c.change * 100).toFixed(0)} %`;
  return c.regressed ? `${pct} REGRESSION` : pct;
}

function render(header: string[], body: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

export function resultsTable(rows: Row[], comparisons: Map<string, Comparison>): string {
  const header = ['workload', 'metric', 'value', 'ceiling', 'ratio', 'target', 'verdict', 'vs baseline'];
  const body = rows.map((r) => [
    r.workload,
    r.label,
    formatNumber(r.value, r.unit),
    r.ceiling === null ? '—' : `${formatNumber(r.ceiling, r.unit)} (${r.ceiling_label})`,
    formatRatio(r.ratio),
    r.target ?? '—',
    r.verdict ?? '—',
    formatChange(comparisons.get(rowKey(r))),
  ]);
  return render(header, body);
}

/** PASS / FALLS SHORT lines for the targets, and the regression flags, under the table. */
export function verdictLines(rows: Row[], comparisons: Map<string, Comparison>): string[] {
  const lines: string[] = [];
  for (const r of rows) {
    if (r.verdict) {
      const judged = r.target_on === 'value' ? formatNumber(r.value, r.unit) : formatRatio(r.ratio);
      lines.push(`${r.verdict}: ${r.workload} ${r.label} ${judged} (target ${r.target})`);
    }
  }
  for (const r of rows) {
    const c = comparisons.get(rowKey(r));
    if (c?.regressed) {
      lines.push(
        `REGRESSION: ${r.workload} ${r.label} ratio ${formatRatio(r.ratio)} vs baseline ${formatRatio(c.baseline_ratio)} (more than ${REGRESSION_THRESHOLD * 100} % worse)`,
      );
    }
  }
  return lines;
}
