// Running one ClickHouse migration file again, as a runner re-running it after a crash would (its
// statements are written to be re-runnable), for the migration tests; and writing facts under the
// views as they were before migration 0031 (every completed payment was revenue), then running it.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CH_MIGRATIONS } from '../../src/lib/paths.ts';
import type { ClickHouseClient } from '../../src/store/clickhouse/client.ts';
import { splitStatements } from '../../src/store/clickhouse/migrate.ts';

/** Runs every statement of clickhouse/migrations/<fileName> in order. */
export async function rerunChMigration(ch: ClickHouseClient, fileName: string): Promise<void> {
  const file = path.join(CH_MIGRATIONS, fileName);
  for (const statement of splitStatements(await readFile(file, 'utf8'))) {
    await ch.command({ query: statement });
  }
}

// The payment views as migrations 0007 and 0010 made them: every completed payment is revenue.
const VIEWS_BEFORE_0031 = [
  `ALTER TABLE payments_daily_mv MODIFY QUERY
SELECT project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id,
  anyLastIf(ad_set_name, ad_set_name != '') AS ad_set_name,
  anyLastIf(creative_name, creative_name != '') AS creative_name,
  anyLastIf(keyword_name, keyword_name != '') AS keyword_name,
  toUInt64(sum(toInt64(sign))) AS revenue_events,
  sum(amount * sign) AS revenue
FROM payments
WHERE status = 'PAYMENT_COMPLETED'
GROUP BY project_id, campaign_id, day, platform, ad_set_id, creative_id, keyword_id`,
  `ALTER TABLE payments_revenue_cohort_mv MODIFY QUERY
SELECT project_id, campaign_id, platform, ad_set_id, creative_id, keyword_id, install_day,
  toUInt16(dateDiff('day', install_day, day)) AS day_n,
  sum(amount * sign) AS revenue
FROM payments
WHERE status = 'PAYMENT_COMPLETED' AND dateDiff('day', install_day, day) BETWEEN 0 AND 30
GROUP BY project_id, campaign_id, platform, ad_set_id, creative_id, keyword_id, install_day, day_n`,
];

/**
 * Runs `write` under the payment views of before migration 0031, then 0031 itself (also when
 * `write` throws, so the views are never left behind). Its correction inserts carry fixed dedup
 * tokens, deduplicated per yearly partition: a second run in one process needs facts of another year.
 */
export async function beforeMigration0031<T>(ch: ClickHouseClient, write: () => Promise<T>): Promise<T> {
  for (const query of VIEWS_BEFORE_0031) {
    await ch.command({ query });
  }
  try {
    return await write();
  } finally {
    await rerunChMigration(ch, '0031_exclude_non_revenue_payment_types.sql');
  }
}
