// withColumns (domain/facts/enrich-facts.ts) splices the install's columns into a fact's JSON text
// without parsing it. The text must stay one valid object holding every value as written, with
// each added column once.
import { describe, expect, it } from 'vitest';
import { withColumns } from '../../src/domain/facts/enrich-facts.ts';

const cols = { campaign_id: 7, display_id: 'abc', install_day: '2026-11-25' };
const added = { cols, text: JSON.stringify(cols).slice(1, -1) };

describe('withColumns', () => {
  it('when a row is spliced, then it parses to the row plus the columns and the re-engagement campaign', () => {
    const out = withColumns('{"ts": "2026-11-25 10:00:00.000", "name": "a}b"}', added, 3);

    expect(JSON.parse(out)).toEqual({
      ts: '2026-11-25 10:00:00.000',
      name: 'a}b',
      ...cols,
      reengagement_campaign_id: 3,
    });
  });

  it('when the row is an empty object, then the result is still one valid object', () => {
    expect(JSON.parse(withColumns('{}', added, 0))).toEqual({ ...cols, reengagement_campaign_id: 0 });
  });

  it('when the row holds a number JSON.parse would round, then its digits pass unchanged', () => {
    const out = withColumns('{"amount_micros": 12345678901234567890, "revenue": 1.50}', added, 0);

    expect(out).toContain('"amount_micros": 12345678901234567890');
    expect(out).toContain('"revenue": 1.50');
  });

  it('when the row already names an added column, then it is merged once, the added value winning', () => {
    const out = withColumns('{"campaign_id": 99, "x": 1}', added, 0);

    expect(out.match(/"campaign_id"/g)).toHaveLength(1);
    expect(JSON.parse(out)).toEqual({ x: 1, ...cols, reengagement_campaign_id: 0 });
  });
});
