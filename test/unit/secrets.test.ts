// lib/secrets: AES-256-GCM sealing of stored secrets under SECRETS_KEY. Issue: the Meta referrer
// key is stored encrypted at rest; without SECRETS_KEY, embedded mode makes DATA_DIR/secrets.key
// (0600) once and reuses it, and service mode (DATABASE_URL set) refuses with an error naming it.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { decryptSecret, encryptSecret, loadSecretsKey, SecretsKeyError } from '../../src/lib/secrets.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) {
    await rm(d, { recursive: true, force: true });
  }
});

async function tempDir(): Promise<string> {
  const d = await mkdtemp(path.join(os.tmpdir(), 'secrets-test-'));
  dirs.push(d);
  return d;
}

const KEY = randomBytes(32);
const CONTEXT = 'projects.meta_referrer_key_enc:p1';

describe('encryptSecret / decryptSecret', () => {
  it('when a secret is sealed and opened with the same key and context, then the plaintext comes back', () => {
    const sealed = encryptSecret(KEY, 'a'.repeat(64), CONTEXT);

    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('a'.repeat(8));
    expect(decryptSecret(KEY, sealed, CONTEXT)).toBe('a'.repeat(64));
  });

  it('when the same secret is sealed twice, then the stored values differ (fresh IV)', () => {
    expect(encryptSecret(KEY, 'same', CONTEXT)).not.toBe(encryptSecret(KEY, 'same', CONTEXT));
  });

  it('when opened with another key, another context, or after tampering, then it throws', () => {
    const sealed = encryptSecret(KEY, 'secret', CONTEXT);
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    raw[14] = (raw[14] ?? 0) ^ 1;
    const tampered = `v1.${raw.toString('base64url')}`;

    expect(() => decryptSecret(randomBytes(32), sealed, CONTEXT)).toThrow(/cannot be decrypted/);
    expect(() => decryptSecret(KEY, sealed, 'projects.meta_referrer_key_enc:p2')).toThrow(/cannot be decrypted/);
    expect(() => decryptSecret(KEY, tampered, CONTEXT)).toThrow(/cannot be decrypted/);
  });

  it('when the stored value has an unknown format, then it throws without trying', () => {
    expect(() => decryptSecret(KEY, 'plain text', CONTEXT)).toThrow(/unknown format/);
    expect(() => decryptSecret(KEY, 'v2.AAAA', CONTEXT)).toThrow(/unknown format/);
    expect(() => decryptSecret(KEY, 'v1.AAAA', CONTEXT)).toThrow(/unknown format/);
  });
});

describe('loadSecretsKey', () => {
  it('when SECRETS_KEY is set, then it is the key (in any mode)', async () => {
    const hex = randomBytes(32).toString('hex');
    const config = loadConfig({ SECRETS_KEY: hex.toUpperCase(), DATABASE_URL: 'postgres://db/x' });

    expect((await loadSecretsKey(config)).toString('hex')).toBe(hex);
  });

  it('when unset in embedded mode, then DATA_DIR/secrets.key is made once (0600) and reused', async () => {
    const dataDir = path.join(await tempDir(), 'data');
    const config = loadConfig({ DATA_DIR: dataDir });

    const [a, b] = await Promise.all([loadSecretsKey(config), loadSecretsKey(config)]);
    const again = await loadSecretsKey(loadConfig({ DATA_DIR: dataDir }));

    const file = path.join(dataDir, 'secrets.key');
    expect(a.length).toBe(32);
    expect(b.equals(a)).toBe(true);
    expect(again.equals(a)).toBe(true);
    expect((await readFile(file, 'utf8')).trim()).toBe(a.toString('hex'));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('when unset in embedded mode and a key file exists, then that key is used', async () => {
    const dataDir = await tempDir();
    const hex = randomBytes(32).toString('hex');
    await writeFile(path.join(dataDir, 'secrets.key'), `${hex}\n`, { mode: 0o600 });

    expect((await loadSecretsKey(loadConfig({ DATA_DIR: dataDir }))).toString('hex')).toBe(hex);
  });

  it('when the key file holds something else, then it fails naming SECRETS_KEY and the file', async () => {
    const dataDir = await tempDir();
    await writeFile(path.join(dataDir, 'secrets.key'), 'not a key\n');

    const err = await loadSecretsKey(loadConfig({ DATA_DIR: dataDir })).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(SecretsKeyError);
    expect(String((err as Error).message)).toMatch(/SECRETS_KEY: .*secrets\.key does not hold 64 hex characters/);
  });

  it('when unset in service mode (DATABASE_URL set), then it refuses with an error naming SECRETS_KEY', async () => {
    const dataDir = await tempDir();
    const config = loadConfig({ DATA_DIR: dataDir, DATABASE_URL: 'postgres://db/x' });

    const err = await loadSecretsKey(config).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(SecretsKeyError);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain('SECRETS_KEY: not set');
    await expect(stat(path.join(dataDir, 'secrets.key'))).rejects.toThrow(/ENOENT/);
  });
});

describe('config: network resolver settings', () => {
  it('when unset, then Apple AdServices is the default URL and no SECRETS_KEY is configured', () => {
    const c = loadConfig({});

    expect(c.appleAdsAttributionUrl).toBe('https://api-adservices.apple.com/api/v1/');
    expect(c.secretsKey).toBeUndefined();
  });

  it('when SECRETS_KEY is not 64 hex characters, then startup stops naming it', () => {
    expect(() => loadConfig({ SECRETS_KEY: 'abc' })).toThrow(/SECRETS_KEY: must be 64 hex characters/);
  });

  it('when APPLE_ADS_ATTRIBUTION_URL is not an http(s) URL, then startup stops naming it', () => {
    expect(() => loadConfig({ APPLE_ADS_ATTRIBUTION_URL: 'ftp://x' })).toThrow(
      /APPLE_ADS_ATTRIBUTION_URL: must be a valid URL starting with http:\/\/ or https:\/\//,
    );
  });
});
