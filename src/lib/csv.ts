// RFC 4180 CSV: comma-separated, double-quoted fields ("" inside quotes is a quote), CRLF or LF line
// ends, quoted fields may span lines; a UTF-8 BOM is ignored. Each record says the line it starts on.

export type CsvRecord = { line: number; fields: string[] };

export class CsvError extends Error {}

export function parseCsv(text: string): CsvRecord[] {
  const s = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let line = 1;
  let start = 1;
  let quoted = false;
  let i = 0;
  const endRecord = () => {
    fields.push(field);
    // A blank line is no record.
    if (!(fields.length === 1 && fields[0] === '')) {
      records.push({ line: start, fields });
    }
    fields = [];
    field = '';
  };
  while (i < s.length) {
    const ch = s[i] as string;
    if (quoted) {
      if (ch === '"' && s[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (ch === '"') {
        quoted = false;
      } else {
        if (ch === '\n') {
          line += 1;
        }
        field += ch;
      }
      i += 1;
      continue;
    }
    if (ch === '"' && field === '') {
      quoted = true;
    } else if (ch === ',') {
      fields.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      endRecord();
      i += ch === '\r' && s[i + 1] === '\n' ? 2 : 1;
      line += 1;
      start = line;
      continue;
    } else {
      field += ch;
    }
    i += 1;
  }
  if (quoted) {
    throw new CsvError(`line ${start}: a quoted field is not closed`);
  }
  if (field !== '' || fields.length > 0) {
    endRecord();
  }
  return records;
}
