// RFC 4180 CSV: comma-separated, double-quoted fields ("" inside quotes is a quote), CRLF or LF line
// ends, quoted fields may span lines; a UTF-8 BOM is ignored. Each record says the line it starts on.
// CsvParser takes the text in chunks (a file streamed, so a large one is never held whole), and
// parseCsv a whole text.

export type CsvRecord = { line: number; fields: string[] };

export class CsvError extends Error {}

export class CsvParser {
  private fields: string[] = [];
  private field = '';
  private line = 1;
  private start = 1;
  private quoted = false;
  /** A quote seen inside a quoted field: a second one makes a quote, anything else closes the field. */
  private quoteSeen = false;
  /** A CR ended a record: an LF right after it belongs to the same line end. */
  private crSeen = false;
  private first = true;

  /** The records the chunk completes, in order. */
  push(chunk: string): CsvRecord[] {
    const out: CsvRecord[] = [];
    let s = chunk;
    if (this.first && s.length > 0) {
      this.first = false;
      if (s.charCodeAt(0) === 0xfeff) {
        s = s.slice(1);
      }
    }
    for (const ch of s) {
      if (this.crSeen) {
        this.crSeen = false;
        if (ch === '\n') {
          continue;
        }
      }
      if (this.quoteSeen) {
        this.quoteSeen = false;
        if (ch === '"') {
          this.field += '"';
          continue;
        }
        this.quoted = false;
      } else if (this.quoted) {
        if (ch === '"') {
          this.quoteSeen = true;
        } else {
          if (ch === '\n') {
            this.line += 1;
          }
          this.field += ch;
        }
        continue;
      }
      if (ch === '"' && this.field === '') {
        this.quoted = true;
      } else if (ch === ',') {
        this.fields.push(this.field);
        this.field = '';
      } else if (ch === '\n' || ch === '\r') {
        this.endRecord(out);
        this.crSeen = ch === '\r';
        this.line += 1;
        this.start = this.line;
      } else {
        this.field += ch;
      }
    }
    return out;
  }

  /** The last record, when the text does not end with a line end. */
  end(): CsvRecord[] {
    if (this.quoteSeen) {
      this.quoteSeen = false;
      this.quoted = false;
    }
    if (this.quoted) {
      throw new CsvError(`line ${this.start}: a quoted field is not closed`);
    }
    const out: CsvRecord[] = [];
    if (this.field !== '' || this.fields.length > 0) {
      this.endRecord(out);
    }
    return out;
  }

  private endRecord(out: CsvRecord[]): void {
    this.fields.push(this.field);
    // A blank line is no record.
    if (!(this.fields.length === 1 && this.fields[0] === '')) {
      out.push({ line: this.start, fields: this.fields });
    }
    this.fields = [];
    this.field = '';
  }
}

export function parseCsv(text: string): CsvRecord[] {
  const p = new CsvParser();
  return [...p.push(text), ...p.end()];
}
