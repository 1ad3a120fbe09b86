// The JSON Schema patterns of /openapi.json (http/parse/doc-patterns.ts) against the parsers they
// describe: for each value, the pattern of the documented query parameter matches exactly when the
// parser accepts it. Patterns are compiled as validators do (ECMA-262, unicode mode).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { anyCaseEnum, trimmedText, upTo } from '../../src/http/parse/doc-patterns.ts';
import { attributedUsersQuerySchema, parseAttributedUsers } from '../../src/http/parse/v1/attributed-users.ts';
import { listCampaignsQuerySchema, parseListCampaigns } from '../../src/http/parse/v1/campaigns.ts';
import { parseReportQuery, reportQuerySchema } from '../../src/http/parse/v1/reporting.ts';

function patternOf(schema: z.ZodObject, name: string): RegExp {
  const json = z.toJSONSchema(schema, { io: 'input' }) as { properties: Record<string, { pattern?: string }> };
  const pattern = json.properties[name]?.pattern;
  if (!pattern) {
    throw new Error(`${name} has no pattern`);
  }
  return new RegExp(pattern, 'u');
}

const accepts = (parse: () => unknown): boolean => {
  try {
    parse();
    return true;
  } catch {
    return false;
  }
};

/** Values where the pattern and the parser disagree. */
function disagreements(re: RegExp, values: string[], parse: (v: string) => unknown): string[] {
  return values.filter((v) => re.test(v) !== accepts(() => parse(v)));
}

const numbers = (to: number) => Array.from({ length: to + 1 }, (_, i) => String(i));
const padded = (vs: string[]) => vs.flatMap((v) => [v, `0${v}`, `00${v}`, ` ${v}`, `${v} `, `\t${v}\n`]);
const ODD = ['', ' ', 'a', '1.0', '1e2', '-1', '+1', '１', '0x10', '1 2'];

describe('upTo', () => {
  it.each([1, 9, 10, 100, 365, 1000, 2_147_483_647])('when max is %i, then it matches exactly 1 to max', (max) => {
    const re = new RegExp(`^${upTo(max)}$`, 'u');
    const probe = [
      ...numbers(Math.min(max, 5000) + 20),
      String(max - 1),
      String(max),
      String(max + 1),
      String(max * 10),
    ];

    expect(probe.filter((v) => re.test(v) !== (Number(v) >= 1 && Number(v) <= max && !v.startsWith('0')))).toEqual([]);
  });
});

describe('trimmedText and anyCaseEnum', () => {
  it('when a value is trimmed, then trimmedText matches exactly the lengths the parser allows', () => {
    const re = new RegExp(trimmedText(1, 5), 'u');
    const values = ['', ' ', 'a', ' a ', 'abcde', ' abcde\n', 'abcdef', 'a   b', '\u00a0ab\u00a0', 'a\u0000b'];

    expect(values.filter((v) => re.test(v) !== (v.trim().length >= 1 && v.trim().length <= 5))).toEqual([]);
    expect(new RegExp(trimmedText(1, 5, { noNul: true }), 'u').test('a\u0000b')).toBe(false);
    expect(new RegExp(trimmedText(0, 5), 'u').test('  ')).toBe(true);
  });

  it('when values are matched in any case, then anyCaseEnum takes every case and nothing else', () => {
    const re = new RegExp(anyCaseEnum(['well-known', 'ios'], { trim: true, empty: false }), 'u');

    expect(['ios', 'IOS', ' iOs ', 'Well-Known'].every((v) => re.test(v))).toBe(true);
    expect(['', 'io', 'iosx', 'well known'].some((v) => re.test(v))).toBe(false);
  });
});

describe('documented query parameters against their parsers', () => {
  it('when limit is sent to the list, then the pattern matches exactly the limits parsePagination takes', () => {
    const re = patternOf(listCampaignsQuerySchema, 'limit');

    expect(disagreements(re, [...padded(numbers(1100)), ...ODD], (v) => parseListCampaigns({ limit: v }))).toEqual([]);
  });

  it('when filter is sent to the list, then the pattern matches exactly the filters parseListCampaigns takes', () => {
    const re = patternOf(listCampaignsQuerySchema, 'filter');
    const values = ['ALL', 'all', 'Active', 'inactive', 'iNaCtIvE', ' ALL', 'ACTIVE ', 'open', ...ODD];

    expect(disagreements(re, values, (v) => parseListCampaigns({ filter: v }))).toEqual([]);
  });

  it.each([
    ['active_users', [...padded(numbers(400)), ...ODD]],
    ['meta_account_id', ['1', '2147483647', '2147483648', '02', ' 77 ', '9999999999', '0', ...ODD]],
    ['limit', [...padded(numbers(120)), ...ODD]],
    ['platform', ['ios', 'IOS', ' Android ', 'web', ...ODD]],
    ['view', ['retargeting', 'USER_ACQUISITION', 'both', ...ODD]],
    ['sort_field', ['roas', 'Created_At', 'name', ...ODD]],
    ['sort_order', ['ascending', ' DESCENDING ', 'asc', ...ODD]],
    ['active', ['true', 'FALSE', ' True ', 'yes', ...ODD]],
    ['search', ['x'.repeat(500), ` ${'x'.repeat(500)} `, 'x'.repeat(501), ...ODD]],
    ['from', ['2025-01-31', ' 2025-12-01 ', '2025-1-1', '2025-13-01', '20250101', ...ODD]],
  ])(
    'when %s is sent to reporting, then the pattern matches exactly the values parseReportQuery takes',
    (name, values) => {
      const re = patternOf(reportQuerySchema, name);

      expect(disagreements(re, values, (v) => parseReportQuery({ [name]: v }))).toEqual([]);
    },
  );

  it('when a timestamp or timezone is sent to attributed-users, then the patterns match exactly what the parser takes', () => {
    const stamps = ['2025-01-01T00:00:00', '2025-01-01T23:59:59.1', ' 2025-01-01T00:00:00.123 ', '2025-01-01T24:00:00'];
    const zones = ['UTC', ' Asia/Kolkata ', 'Etc/GMT+5', '+05:30', '../etc'];
    const parse = (key: string) => (v: string) => parseAttributedUsers({ display_id: 'd', [key]: v });

    expect(
      disagreements(
        patternOf(attributedUsersQuerySchema, 'start_timestamp'),
        [...stamps, ...ODD],
        parse('start_timestamp'),
      ),
    ).toEqual([]);
    // 'a' has the shape of a zone name; that it must be a zone the runtime knows is in the description.
    const oddZones = ODD.filter((v) => v !== 'a');
    expect(
      disagreements(patternOf(attributedUsersQuerySchema, 'timezone'), [...zones, ...oddZones], parse('timezone')),
    ).toEqual([]);
  });
});
