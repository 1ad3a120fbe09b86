// Secrets at rest (e.g. a project's Meta Install Referrer decryption key): AES-256-GCM under one
// service key. The stored form is `v1.<base64url(iv | ciphertext | tag)>`, and a context string
// (table, column, row id) is bound as associated data, so a value copied to another row or column
// fails to decrypt instead of leaking there.
//
// The key comes from SECRETS_KEY. Without it, embedded mode (Postgres under DATA_DIR) generates one
// into DATA_DIR/secrets.key (0600) next to the data it protects; service mode (DATABASE_URL set)
// refuses, because a key file on one host would leave every other process unable to decrypt.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type Config, ConfigError } from '../config.ts';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEX_KEY = /^[0-9a-f]{64}$/i;

export type SecretsKeyConfig = Pick<Config, 'secretsKey' | 'databaseUrl' | 'dataDir'>;

/** The key is missing or unusable; the message names SECRETS_KEY (a ConfigError: the CLI exits 2). */
export class SecretsKeyError extends ConfigError {}

export function encryptSecret(key: Buffer, plaintext: string, context: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `${VERSION}.${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`;
}

/** Throws when the value was altered, belongs to another context, or was sealed with another key. */
export function decryptSecret(key: Buffer, stored: string, context: string): string {
  const [version, payload] = stored.split('.');
  const raw = Buffer.from(payload ?? '', 'base64url');
  if (version !== VERSION || raw.length < IV_BYTES + TAG_BYTES) {
    throw new Error('stored secret has an unknown format');
  }
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    throw new Error('stored secret cannot be decrypted (another SECRETS_KEY, or the value was altered)');
  }
}

const fileKeys = new Map<string, Promise<Buffer>>();

/** The service key: SECRETS_KEY, else (embedded mode only) DATA_DIR/secrets.key, made on first use. */
export function loadSecretsKey(config: SecretsKeyConfig): Promise<Buffer> {
  if (config.secretsKey) {
    return Promise.resolve(Buffer.from(config.secretsKey, 'hex'));
  }
  if (config.databaseUrl) {
    return Promise.reject(
      new SecretsKeyError(
        'Invalid configuration:\n  SECRETS_KEY: not set, and DATABASE_URL is (service mode), so secrets cannot be ' +
          'stored or read. Set SECRETS_KEY to 64 hex characters (openssl rand -hex 32), the same on every process.',
      ),
    );
  }
  const file = path.join(config.dataDir, 'secrets.key');
  let key = fileKeys.get(file);
  if (!key) {
    key = readOrCreateKeyFile(file);
    key.catch(() => fileKeys.delete(file));
    fileKeys.set(file, key);
  }
  return key;
}

async function readKeyFile(file: string): Promise<Buffer> {
  const hex = (await readFile(file, 'utf8')).trim();
  if (!HEX_KEY.test(hex)) {
    throw new SecretsKeyError(`Invalid configuration:\n  SECRETS_KEY: ${file} does not hold 64 hex characters`);
  }
  return Buffer.from(hex, 'hex');
}

// Written to a private temp file and hard-linked into place: link() fails if another process won
// the race, and nobody ever reads a half-written key.
async function readOrCreateKeyFile(file: string): Promise<Buffer> {
  try {
    return await readKeyFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw err;
    }
  }
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw err;
    }
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
  return readKeyFile(file);
}
