// The only reader of process.env. Parsed once with zod; a bad or missing setting stops startup
// with a message that names it.
import { createRequire } from 'node:module';
import path from 'node:path';
import { z } from 'zod';

const boolish = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const positiveInt = z.coerce.number().int().positive();
/** An absent URL, or one the URL parser takes, with one of `protocols` (http(s) also need a host). */
const optionalUrl = (protocols: string[]) =>
  z
    .string()
    .trim()
    .optional()
    .refine((v) => v === undefined || isUrlOf(v, protocols), {
      message: `must be a valid URL starting with ${protocols.map((p) => `${p}://`).join(' or ')}`,
    });

function isUrlOf(v: string, protocols: string[]): boolean {
  if (!URL.canParse(v)) {
    return false; // 'http://exa mple.com', 'http://'
  }
  const u = new URL(v);
  const scheme = u.protocol.slice(0, -1);
  if (!protocols.includes(scheme) || !v.toLowerCase().startsWith(`${scheme}://`)) {
    return false;
  }
  // postgres:///db?host=/socket and redis:// (localhost) are valid without a host; a web URL is not.
  return !(scheme === 'http' || scheme === 'https') || u.hostname !== '';
}

/**
 * The proxy-addr that Fastify compiles a trustProxy list with. TRUST_PROXY is checked with it, so
 * config accepts exactly the lists Fastify takes (IPs, CIDRs, netmasks, loopback/linklocal/uniquelocal)
 * and a bad one stops the start here, naming the setting, instead of failing in buildApp after
 * Postgres was started.
 */
const proxyAddr = createRequire(createRequire(import.meta.url).resolve('fastify'))('@fastify/proxy-addr') as {
  compile: (trust: string[]) => unknown;
};

// TRUST_PROXY: false (default) | true | a hop count | a comma list of IPs/CIDRs (what Fastify's trustProxy takes).
const trustProxySchema = z
  .string()
  .trim()
  .default('false')
  .transform((v, ctx): boolean | number | string[] => {
    if (v === 'false') {
      return false;
    }
    if (v === 'true') {
      return true;
    }
    if (/^\d+$/.test(v)) {
      return Number(v);
    }
    const list = v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    try {
      proxyAddr.compile(list);
    } catch (err) {
      ctx.addIssue({
        code: 'custom',
        message: `${(err as Error).message}; use false, true, a hop count, or a comma-separated list of IPs/CIDRs (or loopback, linklocal, uniquelocal)`,
      });
      return z.NEVER;
    }
    return list;
  });

export const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  ROLE: z.enum(['api', 'worker', 'all']).default('all'),
  HOST: z.string().default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  PUBLIC_URL: optionalUrl(['http', 'https']),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: optionalUrl(['postgres', 'postgresql']),
  DATABASE_POOL_SIZE: positiveInt.default(10),
  CLICKHOUSE_URL: optionalUrl(['http', 'https']),
  CLICKHOUSE_USER: z.string().optional(),
  CLICKHOUSE_PASSWORD: z.string().optional(),
  CLICKHOUSE_DATABASE: z.string().optional(),
  REDIS_URL: optionalUrl(['redis', 'rediss']),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  TRUST_PROXY: trustProxySchema,
  RATE_LIMITS_ENABLED: boolish.default(true),
  RATE_LIMIT_IP_PER_SECOND: positiveInt.default(30),
  RATE_LIMIT_DATA_PER_SECOND: positiveInt.default(30),
  RATE_LIMIT_CAMPAIGN_PER_SECOND: positiveInt.default(10),
  RATE_LIMIT_REPORTING_PER_MINUTE: positiveInt.default(1),
  RATE_LIMIT_CLIENT_PER_SECOND: positiveInt.default(25),
  RATE_LIMIT_WEB_PER_SECOND: positiveInt.default(250),
  BODY_LIMIT_V1_BYTES: positiveInt.default(256 * 1024),
  BODY_LIMIT_CLIENT_BYTES: positiveInt.default(64 * 1024),
  REQUEST_TIMEOUT_MS: positiveInt.default(15_000),
  // Fact rows waiting for ClickHouse past which client ingest answers 503 + Retry-After.
  FACT_BACKLOG_MAX_ROWS: positiveInt.default(1_000_000),
  // How long hot lookups (token → project, Meta mappings, link → campaign) stay in memory; 0: never.
  LOOKUP_CACHE_TTL_MS: z.coerce.number().int().min(0).default(1000),
  // Operator settings only, never per tenant: the resolvers call this URL from inside the network.
  APPLE_ADS_ATTRIBUTION_URL: optionalUrl(['http', 'https']).transform(
    (v) => v ?? 'https://api-adservices.apple.com/api/v1/',
  ),
  // Outgoing deliveries (Meta Conversions API): operator settings only, never per tenant.
  META_GRAPH_BASE_URL: optionalUrl(['http', 'https']).transform((v) =>
    (v ?? 'https://graph.facebook.com').replace(/\/+$/, ''),
  ),
  // Analytics integrations (Braze, Mixpanel, Amplitude, PostHog): when set, every vendor request goes
  // to <this>/<vendor><path> instead of the vendor's host (tests' local fakes, an egress proxy).
  ANALYTICS_BASE_URL: optionalUrl(['http', 'https']).transform((v) => v?.replace(/\/+$/, '')),
  META_GRAPH_VERSION: z
    .string()
    .trim()
    .regex(/^v\d+\.\d+$/, 'must look like v21.0')
    .default('v21.0'),
  // Uninstall tracking's push services: operator settings only (tests point them at local fakes).
  FCM_BASE_URL: optionalUrl(['http', 'https']).transform((v) =>
    (v ?? 'https://fcm.googleapis.com').replace(/\/+$/, ''),
  ),
  FCM_OAUTH_TOKEN_URL: optionalUrl(['http', 'https']).transform((v) => v ?? 'https://oauth2.googleapis.com/token'),
  APNS_BASE_URL: optionalUrl(['http', 'https']).transform((v) =>
    (v ?? 'https://api.push.apple.com').replace(/\/+$/, ''),
  ),
  SECRETS_KEY: z
    .string()
    .trim()
    .toLowerCase()
    .optional()
    .refine((v) => v === undefined || /^[0-9a-f]{64}$/.test(v), {
      message: 'must be 64 hex characters (32 bytes, e.g. `openssl rand -hex 32`)',
    }),
});

export type RateLimits = {
  enabled: boolean;
  ipPerSecond: number;
  dataPerSecond: number;
  campaignPerSecond: number;
  reportingPerMinute: number;
  clientPerSecond: number;
  /** Web SDK events per second per project (POST /web/ingest). */
  webPerSecond: number;
};

export type Config = Readonly<{
  env: 'development' | 'production' | 'test';
  role: 'api' | 'worker' | 'all';
  host: string;
  port: number;
  publicUrl: string;
  logLevel: string;
  dataDir: string;
  databaseUrl: string | undefined;
  databasePoolSize: number;
  clickhouse: { url: string; username?: string; password?: string; database?: string } | undefined;
  redisUrl: string | undefined;
  embeddedPgPort: number;
  trustProxy: boolean | number | string[];
  rateLimits: Readonly<RateLimits>;
  bodyLimitV1: number;
  bodyLimitClient: number;
  requestTimeoutMs: number;
  /** Outbox rows past which client ingest routes answer 503 + Retry-After (ClickHouse is behind). */
  factBacklogMaxRows: number;
  lookupCacheTtlMs: number;
  appleAdsAttributionUrl: string;
  /** Hex key encrypting stored secrets; unset = a generated DATA_DIR/secrets.key in embedded mode. */
  secretsKey: string | undefined;
  /** Meta Graph API base URL and default version (deliveries); from the operator only. */
  metaGraphBaseUrl: string;
  metaGraphVersion: string;
  /** Operator override of the analytics vendors' hosts (tests, egress proxy); undefined: the vendors'. */
  analyticsBaseUrl: string | undefined;
  /** Push services for uninstall tracking (FCM HTTP v1, its OAuth2 token URL, APNs); operator only. */
  push: Readonly<{ fcmBaseUrl: string; fcmTokenUrl: string; apnsBaseUrl: string }>;
}>;

export class ConfigError extends Error {}

/**
 * A setting that parses but names a store this process cannot use: a refused password, a database
 * that does not exist, nothing answering at the URL. Its message is one line that starts with the
 * setting; the driver's own error is its cause. Not a ConfigError: the CLI exits 1 for it, as for
 * any store failure.
 */
export class StoreSettingError extends Error {}

/** A store URL as it may be shown: its password masked. */
export function shownUrl(url: string): string {
  if (!URL.canParse(url)) {
    return '(unparsable URL)';
  }
  const u = new URL(url);
  if (u.password !== '') {
    u.password = 'xxxxx';
  }
  return u.toString();
}

/** Parses the environment. Throws ConfigError naming every bad setting. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // An empty value is unset, for every setting: `PORT=` in a compose file or a .env left blank read
  // as 0 (a random port) and `LOOKUP_CACHE_TTL_MS=` as "never cache".
  const given = Object.fromEntries(Object.entries(env).filter(([, v]) => v === undefined || v.trim() !== ''));
  const parsed = envSchema.safeParse(given);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (e.ROLE !== 'all' && !e.REDIS_URL) {
    throw new ConfigError(
      `Invalid configuration:\n  ROLE: '${e.ROLE}' needs REDIS_URL (API and worker processes share jobs through Redis)`,
    );
  }
  if (e.ROLE !== 'all' && !e.CLICKHOUSE_URL) {
    throw new ConfigError(
      `Invalid configuration:\n  ROLE: '${e.ROLE}' needs CLICKHOUSE_URL (the embedded ClickHouse engine opens in one process only)`,
    );
  }
  return Object.freeze({
    env: e.NODE_ENV,
    role: e.ROLE,
    host: e.HOST,
    port: e.PORT,
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    logLevel: e.LOG_LEVEL,
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    clickhouse: e.CLICKHOUSE_URL
      ? {
          url: e.CLICKHOUSE_URL,
          username: e.CLICKHOUSE_USER,
          password: e.CLICKHOUSE_PASSWORD,
          database: e.CLICKHOUSE_DATABASE,
        }
      : undefined,
    redisUrl: e.REDIS_URL,
    embeddedPgPort: e.EMBEDDED_PG_PORT,
    trustProxy: e.TRUST_PROXY,
    rateLimits: Object.freeze({
      enabled: e.RATE_LIMITS_ENABLED,
      ipPerSecond: e.RATE_LIMIT_IP_PER_SECOND,
      dataPerSecond: e.RATE_LIMIT_DATA_PER_SECOND,
      campaignPerSecond: e.RATE_LIMIT_CAMPAIGN_PER_SECOND,
      reportingPerMinute: e.RATE_LIMIT_REPORTING_PER_MINUTE,
      clientPerSecond: e.RATE_LIMIT_CLIENT_PER_SECOND,
      webPerSecond: e.RATE_LIMIT_WEB_PER_SECOND,
    }),
    bodyLimitV1: e.BODY_LIMIT_V1_BYTES,
    bodyLimitClient: e.BODY_LIMIT_CLIENT_BYTES,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    factBacklogMaxRows: e.FACT_BACKLOG_MAX_ROWS,
    lookupCacheTtlMs: e.LOOKUP_CACHE_TTL_MS,
    appleAdsAttributionUrl: e.APPLE_ADS_ATTRIBUTION_URL,
    secretsKey: e.SECRETS_KEY,
    metaGraphBaseUrl: e.META_GRAPH_BASE_URL,
    metaGraphVersion: e.META_GRAPH_VERSION,
    analyticsBaseUrl: e.ANALYTICS_BASE_URL,
    push: Object.freeze({
      fcmBaseUrl: e.FCM_BASE_URL,
      fcmTokenUrl: e.FCM_OAUTH_TOKEN_URL,
      apnsBaseUrl: e.APNS_BASE_URL,
    }),
  });
}

/**
 * The configuration of a service process (src/main.ts): loadConfig, plus what only a running
 * service needs. A process that runs jobs (ROLE worker or all) against a Postgres server decrypts
 * stored secrets in them (Meta install referrers, Meta tokens, push credentials): without
 * SECRETS_KEY it would fail every such job, and attribution would go on without the Meta claim.
 * The CLI keeps loadConfig: its commands that need no secret work without the key.
 */
export function loadServiceConfig(env: Record<string, string | undefined> = process.env): Config {
  const config = loadConfig(env);
  if (config.databaseUrl && !config.secretsKey && config.role !== 'api') {
    throw new ConfigError(
      `Invalid configuration:\n  SECRETS_KEY: not set, and DATABASE_URL is (service mode): ROLE '${config.role}' runs ` +
        'the jobs that read stored secrets. Set SECRETS_KEY to 64 hex characters (openssl rand -hex 32), the same on every process.',
    );
  }
  return config;
}

/** Which stores are embedded: each service URL that is absent is replaced by its embedded engine. */
export function describeMode(config: Config): 'embedded' | 'service' | 'mixed' {
  const external = [config.databaseUrl, config.clickhouse, config.redisUrl].filter(Boolean).length;
  if (external === 0) {
    return 'embedded';
  }
  return external === 3 ? 'service' : 'mixed';
}
