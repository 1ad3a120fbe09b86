// The ClickHouse raw tables the fact writer feeds from the outbox. A feature adds its table here
// together with its clickhouse/migrations file.
export const FACT_TABLES = ['clicks', 'install_events', 'attributions'] as const;
export type FactTable = (typeof FACT_TABLES)[number];
