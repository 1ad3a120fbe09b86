// The ClickHouse schema as README "For data engineers" documents it: every named
// table and view exists, the stable views have exactly the documented columns, times are
// DateTime64(3, 'UTC'), money is Decimal(38, 9), the aggregates are keyed as documented, the click
// lookups keep what README says, and README's money rules run on every raw
// table that holds money.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chJson, migratedTestClickHouse } from '../support/harness.ts';

function dataEngineerSection(): string {
  const readme = readFileSync(path.join(__dirname, '../../README.md'), 'utf8');
  return readme.slice(readme.indexOf('## For data engineers'), readme.indexOf('## Development'));
}

/** The backticked names of the paragraph of the section that starts with `lead`, up to `stop`. */
function backticked(text: string): string[] {
  // Each name once, in its first place (README mentions `clicks` again inside a parenthesis).
  return [...new Set([...text.matchAll(/`([a-z_0-9]+)`/g)].map((m) => m[1] as string))];
}

function paragraph(section: string, lead: string, stop: string): string {
  const start = section.indexOf(lead);
  if (start < 0) {
    throw new Error(`README has no "${lead}"`);
  }
  return section.slice(start + lead.length, section.indexOf(stop, start + lead.length));
}

type Col = { table: string; name: string; type: string };

async function columns(): Promise<Col[]> {
  const ch = await migratedTestClickHouse();
  return chJson<Col>(
    ch,
    `SELECT table, name, type FROM system.columns WHERE database = currentDatabase() ORDER BY table, position`,
  );
}

describe('README "For data engineers": the schema as documented', () => {
  it('when the migrations have run, then every table and view README names exists', async () => {
    const ch = await migratedTestClickHouse();
    const names = (
      await chJson<{ name: string }>(ch, 'SELECT name FROM system.tables WHERE database = currentDatabase()')
    ).map((r) => r.name);
    const documented = [
      'clicks',
      'install_events',
      'attributions',
      'signups',
      'events',
      'payments',
      'spend',
      'uninstalls',
      'delivery_attempts',
      'campaign_daily',
      'campaign_event_daily',
      'campaign_payment_daily',
      'retention_cohort',
      'revenue_cohort',
      'campaign_platform_daily',
      'campaign_platform_monthly',
      'project_event_names',
      'clicks_by_key',
      'clicks_by_ip',
      'v_campaign_daily',
      'v_attributed_installs',
    ];
    expect(documented.filter((t) => !names.includes(t))).toEqual([]);
  });

  it('when v_campaign_daily is described, then its columns are exactly the ones README lists, in order', async () => {
    const section = dataEngineerSection();
    const listed = backticked(
      paragraph(section, '`v_campaign_daily`, one row per', '`v_attributed_installs`, one row'),
    );
    const cols = (await columns()).filter((c) => c.table === 'v_campaign_daily').map((c) => c.name);
    expect(cols).toEqual(listed);
  });

  it('when v_attributed_installs is described, then its columns are exactly the ones README lists, in order', async () => {
    const section = dataEngineerSection();
    const text = paragraph(
      section,
      '`v_attributed_installs`, one row per attribution decision:',
      "The report's numbers",
    );
    // The kind values in parentheses are values, not columns.
    const listed = backticked(text).filter((n) => !['install', 'reinstall', 'reengagement'].includes(n));
    const cols = (await columns()).filter((c) => c.table === 'v_attributed_installs').map((c) => c.name);
    expect(cols).toEqual(listed);
  });

  it("when any fact or view column holds a time, then it is DateTime64(3, 'UTC') (NULL-able only without a click)", async () => {
    const odd = (await columns()).filter(
      (c) =>
        /DateTime/.test(c.type) &&
        c.table !== 'schema_migrations' &&
        !c.table.startsWith('.inner') &&
        c.type !== "DateTime64(3, 'UTC')" &&
        !(
          c.table === 'v_attributed_installs' &&
          c.name === 'clicked_at' &&
          c.type === "Nullable(DateTime64(3, 'UTC'))"
        ),
    );
    expect(odd).toEqual([]);
  });

  it('when any raw table, aggregate or view holds money, then it is Decimal(38, 9)', async () => {
    const money: Record<string, string[]> = {
      events: ['amount'],
      payments: ['amount'],
      spend: ['amount'],
      campaign_daily: ['revenue', 'spend'],
      campaign_platform_daily: ['revenue', 'spend'],
      campaign_platform_monthly: ['revenue', 'spend'],
      campaign_event_daily: ['amount'],
      campaign_payment_daily: ['total'],
      revenue_cohort: ['revenue'],
      v_campaign_daily: ['revenue', 'spend'],
    };
    const cols = await columns();
    const wrong: string[] = [];
    for (const [table, names] of Object.entries(money)) {
      for (const name of names) {
        const c = cols.find((x) => x.table === table && x.name === name);
        if (!c || !/(^|[ (])Decimal\(38, 9\)\)?$/.test(c.type)) {
          wrong.push(`${table}.${name}: ${c?.type ?? 'missing'}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('when the aggregates README lists are described, then each is keyed by project, campaign, day, platform, ad set, creative and keyword', async () => {
    const ch = await migratedTestClickHouse();
    const keys = await chJson<{ name: string; sorting_key: string; engine: string }>(
      ch,
      `SELECT name, sorting_key, engine FROM system.tables WHERE database = currentDatabase()
       AND name IN ('campaign_daily', 'campaign_event_daily', 'campaign_payment_daily', 'retention_cohort', 'revenue_cohort')
       ORDER BY name`,
    );
    expect(keys).toHaveLength(5);
    for (const k of keys) {
      expect(k.engine).toBe('AggregatingMergeTree');
      const parts = k.sorting_key.split(', ');
      for (const part of ['project_id', 'campaign_id', 'platform', 'ad_set_id', 'creative_id', 'keyword_id']) {
        expect(parts, k.name).toContain(part);
      }
      expect(parts.includes('day') || parts.includes('install_day'), k.name).toBe(true);
    }
  });

  it('when the click lookup tables are described, then clicks_by_key keeps 120 days and clicks_by_ip 30, by whole weeks', async () => {
    const ch = await migratedTestClickHouse();
    const rows = await chJson<{ name: string; create_table_query: string; partition_key: string }>(
      ch,
      `SELECT name, create_table_query, partition_key FROM system.tables WHERE database = currentDatabase()
       AND name IN ('clicks_by_key', 'clicks_by_ip') ORDER BY name`,
    );
    const by = Object.fromEntries(rows.map((r) => [r.name, r]));
    expect(by.clicks_by_key?.create_table_query).toMatch(/TTL toDateTime\(ts\) \+ toIntervalDay\(120\)/);
    expect(by.clicks_by_ip?.create_table_query).toMatch(/TTL toDateTime\(ts\) \+ toIntervalDay\(30\)/);
    expect(by.clicks_by_key?.partition_key).toBe('toMonday(ts)');
    expect(by.clicks_by_ip?.partition_key).toBe('toMonday(ts)');
    // No other table expires anything: README documents no other retention.
    const ttl = await chJson<{ name: string }>(
      ch,
      `SELECT name FROM system.tables WHERE database = currentDatabase() AND create_table_query LIKE '% TTL %'
       ORDER BY name`,
    );
    expect(ttl.map((r) => r.name)).toEqual(['clicks_by_ip', 'clicks_by_key']);
  });

  it('when the engine is asked its version, then it is the ClickHouse README names for chdb 3.4 (26.7)', async () => {
    const ch = await migratedTestClickHouse();
    const [v] = await chJson<{ v: string }>(ch, 'SELECT version() AS v');
    expect(v?.v).toMatch(/^26\.7\./);
  });

  it("when README's money rules are run on every raw table that holds money, then they run", async () => {
    // README: "money in `payments` and `spend` is always `sum(amount * sign)`. `events` has no
    // `sign` (an event is never corrected): its money is `sumIf(amount, has_amount = 1)`."
    const ch = await migratedTestClickHouse();
    const rules: [string, string][] = [
      ['payments', 'sum(amount * sign)'],
      ['spend', 'sum(amount * sign)'],
      ['events', 'sumIf(amount, has_amount = 1)'],
    ];
    const failed: string[] = [];
    for (const [table, rule] of rules) {
      try {
        await chJson(ch, `SELECT ${rule} AS money FROM ${table}`);
      } catch (err) {
        failed.push(
          `${table}: ${String((err as Error).message)
            .split('\n')[0]
            ?.slice(0, 120)}`,
        );
      }
    }
    expect(failed).toEqual([]);
  });
});
