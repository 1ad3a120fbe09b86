// The reporting and audience-export parsers after they moved to the
// shared reader (src/http/parse/v1/query-values.ts, commit a9eca96) keep README "Reporting" and
// "Audience exports": defaults, any-case enums, blank = absent, a repeated scalar refused with
// `<name> must be given at most once.`, the same 400 texts, dates that must exist.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors.ts';
import { parseAudienceQuery } from '../../src/http/parse/v1/audiences.ts';
import { parseReportQuery } from '../../src/http/parse/v1/reporting.ts';

function refusal(run: () => unknown): { status: number; message: string } | null {
  try {
    run();
    return null;
  } catch (err) {
    if (err instanceof ApiError) {
      return { status: err.status, message: err.msg };
    }
    throw err;
  }
}

const AUDIENCE = { payment_type: 'any', from: '2025-03-01', to: '2025-03-31', format: 'meta' };

describe('reporting query after the shared reader', () => {
  it('absent and blank values take the README defaults', () => {
    for (const q of [{}, { view: '', sort_field: ' ', sort_order: '\t', active: '', platform: '  ' }]) {
      expect(parseReportQuery(q)).toMatchObject({
        active: null,
        platform: null,
        view: 'user_acquisition',
        sortField: 'installs',
        sortOrder: 'descending',
        from: null,
        to: null,
        activeUsersDays: 7,
      });
    }
  });

  it('enums match in any case, trimmed', () => {
    expect(
      parseReportQuery({
        view: ' RETARGETING ',
        sort_field: 'Roas',
        sort_order: 'ASCENDING',
        active: 'False',
        platform: 'iOS',
      }),
    ).toMatchObject({ view: 'retargeting', sortField: 'roas', sortOrder: 'ascending', active: false, platform: 'IOS' });
  });

  it('a bad or repeated value answers its own 400 text', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ sort_field: 'price' }, MSG_SORT_FIELD('price')],
      [{ sort_order: 'up' }, "Invalid sort_order 'up'. Use ascending or descending."],
      [{ view: 'all' }, "Invalid view 'all'. Use user_acquisition or retargeting."],
      [{ platform: 'web' }, "Invalid platform 'web'. Use ios or android."],
      [{ active: 'yes' }, "Invalid active 'yes'. Use true or false."],
      [{ sort_field: ['revenue', 'revenue'] }, 'sort_field must be given at most once.'],
      [{ platform: ['ios', ''] }, 'platform must be given at most once.'],
      [{ from: '2025-02-29' }, "Invalid from '2025-02-29'. Use a calendar date in the form YYYY-MM-DD."],
      [{ start_date: '2025-13-01' }, "Invalid start_date '2025-13-01'. Use a calendar date in the form YYYY-MM-DD."],
      [{ to: '2025-00-10' }, "Invalid to '2025-00-10'. Use a calendar date in the form YYYY-MM-DD."],
      [{ from: '2025-03-02', to: '2025-03-01' }, "'from' must not be after 'to'."],
    ];
    for (const [q, message] of cases) {
      expect(
        refusal(() => parseReportQuery(q)),
        JSON.stringify(q),
      ).toEqual({ status: 400, message });
    }
    // The main name wins: its alias is not read at all (README "from, to (aliases …)").
    expect(parseReportQuery({ from: '2024-02-29', start_date: 'x', to: '2024-03-01' })).toMatchObject({
      from: '2024-02-29',
      to: '2024-03-01',
    });
    expect(parseReportQuery({ from: '0050-01-01' }).from).toBe('0050-01-01');
  });
});

const MSG_SORT_FIELD = (v: string) =>
  `Invalid sort_field '${v}'. Use clicks, installs, signups, revenue, spend, created_at, uninstalls, conversion, suspicious_installs or roas.`;

describe('audience query after the shared reader', () => {
  it('dates, enums and repeats as before the move', () => {
    expect(
      parseAudienceQuery({ ...AUDIENCE, format: ' GOOGLE ', platform: 'Android', inactive_days: '3' }),
    ).toMatchObject({
      format: 'google',
      platform: 'ANDROID',
      inactive: { days: 3, by: 'app_open' },
      action: { kind: 'payment', type: null },
    });
    expect(parseAudienceQuery({ ...AUDIENCE, platform: '' }).platform).toBeNull();
    const cases: [Record<string, unknown>, string][] = [
      [{ ...AUDIENCE, from: '2025-02-30' }, "Invalid from '2025-02-30'. Use a calendar date in the form YYYY-MM-DD."],
      [{ ...AUDIENCE, to: '2025-12-32' }, "Invalid to '2025-12-32'. Use a calendar date in the form YYYY-MM-DD."],
      [{ ...AUDIENCE, from: '0000-01-01' }, "Invalid from '0000-01-01'. Use a calendar date in the form YYYY-MM-DD."],
      [{ ...AUDIENCE, from: ' ' }, 'from is required: a calendar date in the form YYYY-MM-DD.'],
      [{ ...AUDIENCE, from: ['2025-03-01', '2025-03-02'] }, 'from must be given at most once.'],
      [{ ...AUDIENCE, format: 'csv' }, "Invalid format 'csv'. Use meta, google, google_device_ids or plain."],
      [{ ...AUDIENCE, platform: 'web' }, "Invalid platform 'web'. Use ios or android."],
      [{ ...AUDIENCE, inactive_days: '2', inactive_by: 'push' }, "Invalid inactive_by 'push'. Use app_open or action."],
      [{ ...AUDIENCE, inactive_by: 'ACTION' }, 'inactive_by needs inactive_days.'],
    ];
    for (const [q, message] of cases) {
      expect(
        refusal(() => parseAudienceQuery(q)),
        JSON.stringify(q),
      ).toEqual({ status: 400, message });
    }
  });

  it('a payment type matches in any case and names the exact stored type', () => {
    expect(parseAudienceQuery({ ...AUDIENCE, payment_type: 'funds_withdrawal' }).action).toEqual({
      kind: 'payment',
      type: 'FUNDS_WITHDRAWAL',
    });
  });
});
