// Which ClickHouse failures dead-letter a row (the data is bad: retrying can never help) and which
// keep it queued (an outage or a server-side limit): src/store/clickhouse/facts.ts isRejection.
import { ClickHouseError } from '@clickhouse/client';
import { describe, expect, it } from 'vitest';
import { isRejection } from '../../src/store/clickhouse/facts.ts';

const chError = (code: string, type: string) => new ClickHouseError({ message: `${type} happened`, code, type });
/** chdb throws its own copy of the class: same name and fields, another prototype. */
class ForeignClickHouseError extends Error {
  constructor(
    readonly code: string,
    readonly type: string,
  ) {
    super(type);
  }
}
Object.defineProperty(ForeignClickHouseError, 'name', { value: 'ClickHouseError' });

describe('isRejection', () => {
  it.each([
    ['CANNOT_PARSE_INPUT_ASSERTION_FAILED', '27'],
    ['CANNOT_PARSE_TEXT', '6'],
    ['INCORRECT_DATA', '117'],
    ['TYPE_MISMATCH', '53'],
    ['DECIMAL_OVERFLOW', '407'],
  ])('when ClickHouse refuses the data (%s), then the row is a rejection', (type, code) => {
    expect(isRejection(chError(code, type))).toBe(true);
    expect(isRejection(new ForeignClickHouseError(code, type))).toBe(true);
  });

  it.each([
    ['TOO_MANY_PARTS', '252'],
    ['MEMORY_LIMIT_EXCEEDED', '241'],
    ['UNKNOWN_TABLE', '60'],
    ['TIMEOUT_EXCEEDED', '159'],
  ])('when ClickHouse answers %s, then the rows stay queued', (type, code) => {
    expect(isRejection(chError(code, type))).toBe(false);
  });

  it('when the connection fails or times out, then the rows stay queued', () => {
    expect(isRejection(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(false);
    expect(isRejection(new Error('Timeout error.'))).toBe(false);
    expect(isRejection(undefined)).toBe(false);
  });
});
