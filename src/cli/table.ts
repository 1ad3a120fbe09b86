// Plain aligned text tables for CLI output. Every cell is escaped (escapeControlChars): cells hold
// values from outside (names, install ids an SDK sent, a receiver's or ClickHouse's reason), and a
// newline or an escape sequence in one would cut its row in two or reach the terminal.
import { escapeControlChars } from '../lib/control-chars.ts';

export function table(header: string[], rows: string[][]): string {
  if (rows.length === 0) {
    return '(none)';
  }
  const cells = [header, ...rows].map((r) => r.map(escapeControlChars));
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (row: string[]) =>
    row
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return cells.map(line).join('\n');
}
