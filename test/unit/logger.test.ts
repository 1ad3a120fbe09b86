// pino redaction (STYLE: keys, tokens and `service-key` redacted; catalog D8: no raw PII in logs).
// Each test writes one line through createLogger into a memory stream and reads it back.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/logger.ts';

const KEY = 'sk_live_secret_key_value';
const TOKEN = 'pt_public_token_value';
const EMAIL = 'jane.doe@example.com';
const PHONE = '+44 20 7946 0958';

function capture(): { stream: Writable; lines: () => Record<string, unknown>[]; raw: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  const raw = () => chunks.join('');
  const lines = () =>
    raw()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { stream, lines, raw };
}

function logOnce(obj: Record<string, unknown>): { line: Record<string, unknown>; raw: string } {
  const out = capture();
  createLogger('info', out.stream).info(obj, 'test line');
  const [line] = out.lines();
  if (!line) {
    throw new Error('nothing was logged');
  }
  return { line, raw: out.raw() };
}

describe('createLogger redaction', () => {
  it('when a request is logged, then its headers (with the service-key) are left out', () => {
    const req = { method: 'GET', url: '/api/v1/campaigns', host: 'x', ip: '10.0.0.1', headers: { 'service-key': KEY } };
    const { line, raw } = logOnce({ req });
    expect(line.req).toEqual({ method: 'GET', url: '/api/v1/campaigns', host: 'x', remoteAddress: '10.0.0.1' });
    expect(raw).not.toContain(KEY);
  });

  it('when a request URL carries a key or token in the query string, then the values are masked', () => {
    const url = `/api/v1/campaigns?page=2&service-key=${KEY}&linkrunner_key=${KEY}&token=${TOKEN}&key=${KEY}&monkey=1`;
    const { line, raw } = logOnce({ req: { method: 'GET', url } });
    expect(line.req).toEqual({
      method: 'GET',
      url: '/api/v1/campaigns?page=2&service-key=[redacted]&linkrunner_key=[redacted]&token=[redacted]&key=[redacted]&monkey=1',
    });
    expect(raw).not.toContain(KEY);
    expect(raw).not.toContain(TOKEN);
  });

  it.each([
    [
      'a user id that is an address, %-encoded',
      `/api/v1/users/${encodeURIComponent(EMAIL)}`,
      '/api/v1/users/[redacted]',
    ],
    ['a user id that is an address, raw', `/api/v1/users/${EMAIL}`, '/api/v1/users/[redacted]'],
    [
      'a reporting search',
      `/api/v1/reporting/campaigns?page=2&search=${encodeURIComponent(EMAIL)}&view=user_acquisition`,
      '/api/v1/reporting/campaigns?page=2&search=[redacted]&view=user_acquisition',
    ],
  ])('when a request URL carries an e-mail address in %s, then it is masked', (_where, url, logged) => {
    const { line, raw } = logOnce({ req: { method: 'GET', url } });
    expect(line.req).toEqual({ method: 'GET', url: logged });
    expect(raw).not.toContain('jane.doe');
  });

  it('when bare headers carry service-key and linkrunner-key, then both are redacted', () => {
    const { line, raw } = logOnce({ headers: { 'service-key': KEY, 'linkrunner-key': KEY, accept: '*/*' } });
    expect(line.headers).toEqual({ 'service-key': '[redacted]', 'linkrunner-key': '[redacted]', accept: '*/*' });
    expect(raw).not.toContain(KEY);
  });

  it('when a client body carries the project token, then body.token is redacted and other fields stay', () => {
    const { line, raw } = logOnce({ body: { token: TOKEN, platform: 'ANDROID' } });
    expect(line.body).toEqual({ token: '[redacted]', platform: 'ANDROID' });
    expect(raw).not.toContain(TOKEN);
  });

  it('when token, key and server_key are top-level fields, then each is redacted', () => {
    const { line, raw } = logOnce({ token: TOKEN, key: KEY, server_key: KEY, serverKey: KEY, project: 'p1' });
    expect(line).toMatchObject({
      token: '[redacted]',
      key: '[redacted]',
      server_key: '[redacted]',
      serverKey: '[redacted]',
      project: 'p1',
    });
    expect(raw).not.toContain(KEY);
    expect(raw).not.toContain(TOKEN);
  });

  it('when user_data carries email and phone, then both are redacted, top-level or inside body', () => {
    const { line, raw } = logOnce({
      user_data: { email: EMAIL, phone: PHONE, name: 'Jane' },
      body: { user_data: { email: EMAIL, phone: PHONE } },
    });
    expect(line.user_data).toEqual({ email: '[redacted]', phone: '[redacted]', name: 'Jane' });
    expect(line.body).toEqual({ user_data: { email: '[redacted]', phone: '[redacted]' } });
    expect(raw).not.toContain(EMAIL);
    expect(raw).not.toContain('7946');
  });

  it('when any first-level object carries email, phone or token, then they are redacted', () => {
    const { line, raw } = logOnce({ user: { email: EMAIL, phone: PHONE, id: 'u1' }, job: { token: TOKEN } });
    expect(line.user).toEqual({ email: '[redacted]', phone: '[redacted]', id: 'u1' });
    expect(line.job).toEqual({ token: '[redacted]' });
    expect(raw).not.toContain(EMAIL);
    expect(raw).not.toContain(TOKEN);
  });

  it('when a line is logged, then it is JSON with the service name, the level and the message', () => {
    const { line } = logOnce({ reqId: 'r1' });
    expect(line).toMatchObject({ service: 'attribution', level: 30, msg: 'test line', reqId: 'r1' });
  });

  it('when the level is warn, then info lines are not written', () => {
    const out = capture();
    const log = createLogger('warn', out.stream);
    log.info('dropped');
    log.warn('kept');
    expect(out.lines().map((l) => l.msg)).toEqual(['kept']);
  });
});
