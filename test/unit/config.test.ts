// loadConfig: the environment parsed once with zod. Issue: a bad or missing setting stops startup
// with a message naming it; ROLE=api|worker need REDIS_URL; no service URL means embedded mode.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, describeMode, loadConfig } from '../../src/config.ts';

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      return err;
    }
    throw err;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(env)}`);
}

describe('loadConfig defaults', () => {
  it('when the environment is empty, then it runs every role on port 3000 with data in ./data and the spec limits', () => {
    const c = loadConfig({});

    expect(c.port).toBe(3000);
    expect(c.host).toBe('0.0.0.0');
    expect(c.role).toBe('all');
    expect(c.env).toBe('development');
    expect(c.logLevel).toBe('info');
    expect(c.dataDir).toBe(path.resolve('./data'));
    expect(path.isAbsolute(c.dataDir)).toBe(true);
    expect(c.databaseUrl).toBeUndefined();
    expect(c.clickhouse).toBeUndefined();
    expect(c.redisUrl).toBeUndefined();
    expect(c.publicUrl).toBe('http://localhost:3000');
    expect(c.trustProxy).toBe(false);
    expect(c.rateLimits).toMatchObject({
      enabled: true,
      ipPerSecond: 30,
      dataPerSecond: 30,
      campaignPerSecond: 10,
      reportingPerMinute: 1,
    });
  });

  it('when loaded, then the config is frozen', () => {
    const c = loadConfig({});

    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.rateLimits)).toBe(true);
  });

  it('when settings are given, then they are parsed to their types', () => {
    const c = loadConfig({
      PORT: '8080',
      ROLE: 'api',
      REDIS_URL: 'redis://cache:6379',
      DATABASE_URL: 'postgresql://u:p@db:5432/attr',
      CLICKHOUSE_URL: 'https://ch.example.com:8443',
      CLICKHOUSE_USER: 'writer',
      DATA_DIR: '/var/lib/attribution',
      PUBLIC_URL: 'https://attr.example.com/',
      RATE_LIMITS_ENABLED: 'false',
      RATE_LIMIT_REPORTING_PER_MINUTE: '5',
    });

    expect(c).toMatchObject({
      port: 8080,
      role: 'api',
      redisUrl: 'redis://cache:6379',
      databaseUrl: 'postgresql://u:p@db:5432/attr',
      clickhouse: { url: 'https://ch.example.com:8443', username: 'writer' },
      dataDir: '/var/lib/attribution',
      publicUrl: 'https://attr.example.com',
      rateLimits: { enabled: false, reportingPerMinute: 5 },
    });
  });

  it('when DATABASE_URL names a Unix socket (no host), then it loads: only web URLs need a host', () => {
    const c = loadConfig({ DATABASE_URL: 'postgres:///attr?host=/var/run/postgresql', REDIS_URL: 'redis://' });

    expect([c.databaseUrl, c.redisUrl]).toEqual(['postgres:///attr?host=/var/run/postgresql', 'redis://']);
  });

  it('when a setting is empty or blank, then it takes its default (PORT= read as 0 listened on a random port)', () => {
    const c = loadConfig({
      PORT: '',
      LOOKUP_CACHE_TTL_MS: ' ',
      EMBEDDED_PG_PORT: '',
      HOST: '',
      DATA_DIR: '',
      TRUST_PROXY: ' ',
      SECRETS_KEY: '',
    });

    expect(c).toMatchObject({
      port: 3000,
      lookupCacheTtlMs: 1000,
      embeddedPgPort: 54329,
      host: '0.0.0.0',
      trustProxy: false,
      secretsKey: undefined,
    });
    expect(c.dataDir).toBe(path.resolve('./data'));
  });

  it('when a service URL is an empty string, then it counts as absent (embedded)', () => {
    const c = loadConfig({ DATABASE_URL: '', CLICKHOUSE_URL: ' ', REDIS_URL: '' });

    expect([c.databaseUrl, c.clickhouse, c.redisUrl]).toEqual([undefined, undefined, undefined]);
  });
});

describe('TRUST_PROXY', () => {
  it.each([
    ['false', false],
    ['', false],
    ['true', true],
    ['2', 2],
    ['10.0.0.0/8', ['10.0.0.0/8']],
    ['10.0.0.0/8, 127.0.0.1 ,::1', ['10.0.0.0/8', '127.0.0.1', '::1']],
    ['loopback, uniquelocal', ['loopback', 'uniquelocal']],
    ['10.0.0.0/255.0.0.0', ['10.0.0.0/255.0.0.0']],
  ])("when '%s', then it is %j", (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });
});

describe('a bad setting', () => {
  it.each([
    ['PORT', { PORT: 'abc' }],
    ['PORT', { PORT: '70000' }],
    ['ROLE', { ROLE: 'x' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://u:p@localhost/db' }],
    ['REDIS_URL', { REDIS_URL: 'http://localhost:6379' }],
    ['CLICKHOUSE_URL', { CLICKHOUSE_URL: 'tcp://localhost:9000' }],
    ['RATE_LIMITS_ENABLED', { RATE_LIMITS_ENABLED: 'yes' }],
    ['RATE_LIMIT_IP_PER_SECOND', { RATE_LIMIT_IP_PER_SECOND: '0' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['EMBEDDED_PG_PORT', { EMBEDDED_PG_PORT: 'five' }],
    // Fastify's proxy-addr rejects these only when buildApp runs, after Postgres was started.
    ['TRUST_PROXY', { TRUST_PROXY: 'abc' }],
    ['TRUST_PROXY', { TRUST_PROXY: '10.0.0.0/33' }],
    ['TRUST_PROXY', { TRUST_PROXY: '10.0.0.1, proxy.local' }],
    // A prefix match took these.
    ['PUBLIC_URL', { PUBLIC_URL: 'http://exa mple.com' }],
    ['PUBLIC_URL', { PUBLIC_URL: 'http://' }],
    ['CLICKHOUSE_URL', { CLICKHOUSE_URL: 'https://' }],
  ])('when %s is bad (%j), then loadConfig throws a ConfigError naming it', (name, env) => {
    const err = configError(env);

    expect(err.message).toMatch(/^Invalid configuration:/);
    expect(err.message).toMatch(new RegExp(`^  ${name}: `, 'm'));
  });

  it('when several settings are bad, then the message names each of them', () => {
    const err = configError({ PORT: 'abc', ROLE: 'x', RATE_LIMITS_ENABLED: 'yes' });

    expect(err.message).toContain('PORT');
    expect(err.message).toContain('ROLE');
    expect(err.message).toContain('RATE_LIMITS_ENABLED');
  });

  it.each(['api', 'worker'])('when ROLE=%s has no REDIS_URL, then the error names REDIS_URL', (role) => {
    const err = configError({ ROLE: role });

    expect(err.message).toContain(`ROLE: '${role}' needs REDIS_URL`);
  });

  it.each(['api', 'worker'])(
    'when ROLE=%s has REDIS_URL but no CLICKHOUSE_URL, then the error names CLICKHOUSE_URL',
    (role) => {
      const err = configError({ ROLE: role, REDIS_URL: 'rediss://cache:6380' });
      expect(err.message).toContain(`ROLE: '${role}' needs CLICKHOUSE_URL`);
    },
  );

  it.each(['api', 'worker'])('when ROLE=%s has a REDIS_URL and a CLICKHOUSE_URL, then it loads', (role) => {
    expect(loadConfig({ ROLE: role, REDIS_URL: 'rediss://cache:6380', CLICKHOUSE_URL: 'http://ch:8123' }).role).toBe(
      role,
    );
  });
});

describe('describeMode', () => {
  it('when no service URL is set, then it is embedded', () => {
    expect(describeMode(loadConfig({}))).toBe('embedded');
  });

  it.each([
    [{ DATABASE_URL: 'postgres://db/attr' }],
    [{ CLICKHOUSE_URL: 'http://ch:8123' }],
    [{ REDIS_URL: 'redis://cache' }],
    [{ DATABASE_URL: 'postgres://db/attr', CLICKHOUSE_URL: 'http://ch:8123' }],
  ])('when only some service URLs are set (%j), then it is mixed', (env) => {
    expect(describeMode(loadConfig(env))).toBe('mixed');
  });

  it('when Postgres, ClickHouse and Redis URLs are all set, then it is service', () => {
    const env = { DATABASE_URL: 'postgres://db/attr', CLICKHOUSE_URL: 'http://ch:8123', REDIS_URL: 'redis://cache' };

    expect(describeMode(loadConfig(env))).toBe('service');
  });
});
