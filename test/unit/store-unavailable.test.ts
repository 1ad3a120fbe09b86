// Postgres unreachable or restarting answers 503 with Retry-After (catalog F2), not 500: the error
// handler recognises postgres.js connection errors, socket errors and SQLSTATE classes 08 / 57P.
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { registerErrorHandling } from '../../src/http/errors.ts';
import { loadSecretsKey } from '../../src/lib/secrets.ts';

const withCode = (code: string) => Object.assign(new Error(code), { code });

async function statusFor(code: string): Promise<number> {
  const app = Fastify();
  registerErrorHandling(app);
  app.get('/x', async () => {
    throw withCode(code);
  });
  return (await app.inject({ method: 'GET', url: '/x' })).statusCode;
}

describe('store unavailable', () => {
  it.each([
    'CONNECTION_CLOSED',
    'CONNECTION_ENDED',
    'CONNECT_TIMEOUT',
    'ECONNREFUSED',
    'ETIMEDOUT',
    '57P01',
    '57P03',
    '08006',
  ])('when the error code is %s, then 503', async (code) => {
    expect(await statusFor(code)).toBe(503);
  });

  it.each(['23505', '22P02', 'FST_ERR_VALIDATION', ''])('when the error code is "%s", then not 503', async (code) => {
    expect(await statusFor(code)).not.toBe(503);
  });
});

describe('write conflict', () => {
  it.each(['40P01', '40001'])(
    'when a route fails with %s past its retries, then 503 with Retry-After: 1 and the envelope',
    async (code) => {
      const app = Fastify();
      registerErrorHandling(app);
      app.get('/x', async () => {
        throw withCode(code);
      });
      const res = await app.inject({ method: 'GET', url: '/x' });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.json()).toEqual({ msg: 'Service temporarily unavailable. Please retry later.', status: 503 });
    },
  );
});

describe('503', () => {
  it('when a route fails because Postgres went away, then 503 with Retry-After and the envelope', async () => {
    const app = Fastify();
    registerErrorHandling(app);
    app.get('/x', async () => {
      throw withCode('CONNECTION_CLOSED');
    });
    const res = await app.inject({ method: 'GET', url: '/x' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json()).toEqual({ msg: 'Service temporarily unavailable. Please retry later.', status: 503 });
  });

  it('when a route fails for another reason, then 500 Internal server error', async () => {
    const app = Fastify();
    registerErrorHandling(app);
    app.get('/x', async () => {
      throw withCode('23505');
    });
    const res = await app.inject({ method: 'GET', url: '/x' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ msg: 'Internal server error', status: 500 });
  });

  it('when a route needs secrets and service mode has no SECRETS_KEY, then 503 naming the setting', async () => {
    const app = Fastify();
    registerErrorHandling(app);
    app.get('/x', async () =>
      loadSecretsKey({ secretsKey: undefined, databaseUrl: 'postgres://db/x', dataDir: '/tmp' }),
    );
    const res = await app.inject({ method: 'GET', url: '/x' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({
      msg: 'Secrets are not configured on this server (SECRETS_KEY). Ask its operator.',
      status: 503,
    });
  });
});
