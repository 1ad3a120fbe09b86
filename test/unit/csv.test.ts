// src/lib/csv.ts: RFC 4180 records with the line each starts on, the same whether the text comes
// whole (parseCsv) or in chunks cut anywhere (CsvParser, for files streamed from disk): inside a
// quoted field, between the two quotes of an escaped quote, between CR and LF, inside a BOM'd start.
import { describe, expect, it } from 'vitest';
import { CsvError, CsvParser, parseCsv } from '../../src/lib/csv.ts';

const TEXT =
  '\ufeffday,name,amount\r\n2025-01-01,"a, ""quoted""\r\nname",1.5\r\n\r\n2025-01-02,plain,2\n2025-01-03,"x",3\r2025-01-04,last,4';

const WHOLE = [
  { line: 1, fields: ['day', 'name', 'amount'] },
  { line: 2, fields: ['2025-01-01', 'a, "quoted"\r\nname', '1.5'] },
  { line: 5, fields: ['2025-01-02', 'plain', '2'] },
  { line: 6, fields: ['2025-01-03', 'x', '3'] },
  { line: 7, fields: ['2025-01-04', 'last', '4'] },
];

function inChunks(text: string, cuts: number[]) {
  const p = new CsvParser();
  const out = [];
  let from = 0;
  for (const at of [...cuts, text.length]) {
    out.push(...p.push(text.slice(from, at)));
    from = at;
  }
  return [...out, ...p.end()];
}

describe('CSV', () => {
  it('when the text comes whole, then each record with the line it starts on', () => {
    expect(parseCsv(TEXT)).toEqual(WHOLE);
  });

  it('when the text comes in two chunks cut at any position, then the same records', () => {
    for (let cut = 0; cut <= TEXT.length; cut++) {
      expect(inChunks(TEXT, [cut]), `cut at ${cut}`).toEqual(WHOLE);
    }
  });

  it('when the text comes one character at a time, then the same records', () => {
    expect(
      inChunks(
        TEXT,
        Array.from({ length: TEXT.length }, (_, i) => i),
      ),
    ).toEqual(WHOLE);
  });

  it('when a quoted field is never closed, then a CsvError names its line', () => {
    expect(() => parseCsv('a,b\n1,"open\n')).toThrow(new CsvError('line 2: a quoted field is not closed'));
  });
});
