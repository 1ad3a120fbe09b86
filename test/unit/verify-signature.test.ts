// verifySignature (real-clients §2). The expected signatures are computed here with node:crypto,
// step by step as the iOS SDK does it, not through the code under test.
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/domain/identity/verify-signature.ts';

const SECRET = 'q8V1c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXM';
const NOW = 1_752_000_000_000;
const BODY = Buffer.from('{"token":"pt_x","platform":"IOS","url":"https:\\/\\/a.example\\/p?x=1"}', 'utf8');

/** §2: contentHash = base64(SHA-256(body)) or ''; stringToSign = `ts\ncontentHash`; HMAC keyed by the secret's UTF-8. */
function sdkSign(body: Buffer, timestamp: string, secret = SECRET): string {
  const contentHash = body.length === 0 ? '' : createHash('sha256').update(body).digest('base64');
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}\n${contentHash}`).digest('base64');
}

function check(opts: { body?: Buffer; timestamp?: string; signature?: string; secret?: string; nowMs?: number }) {
  const timestamp = opts.timestamp ?? String(NOW);
  const body = opts.body ?? BODY;
  return verifySignature({
    rawBody: body,
    headers: { timestamp, signature: opts.signature ?? sdkSign(body, timestamp) },
    key: { secret: opts.secret ?? SECRET },
    nowMs: opts.nowMs ?? NOW,
  });
}

describe('verifySignature', () => {
  it('when the body, timestamp and secret match, then it is ok', () => {
    expect(check({})).toEqual({ ok: true });
  });

  it('when checked against a fixed vector, then the scheme is exactly §2 (standard padded base64, no decoding of the secret)', () => {
    const body = Buffer.from('{"a":1}', 'utf8');
    const contentHash = createHash('sha256').update('{"a":1}').digest('base64');
    expect(contentHash).toMatch(/=$/);
    const signature = createHmac('sha256', 'k3y').update(`1700000000000\n${contentHash}`).digest('base64');

    const res = verifySignature({
      rawBody: body,
      headers: { timestamp: '1700000000000', signature },
      key: { secret: 'k3y' },
      nowMs: 1_700_000_000_000,
    });

    expect(res).toEqual({ ok: true });
  });

  it('when the body is empty, then the content hash is the empty string', () => {
    const empty = Buffer.alloc(0);
    const signature = createHmac('sha256', SECRET).update(`${NOW}\n`).digest('base64');

    expect(check({ body: empty, signature })).toEqual({ ok: true });
    expect(check({ body: empty, signature: sdkSign(Buffer.from(''), String(NOW)) })).toEqual({ ok: true });
  });

  it('when the body is empty but was signed as if it hashed to SHA-256(""), then it fails', () => {
    const hashOfEmpty = createHash('sha256').update('').digest('base64');
    const signature = createHmac('sha256', SECRET).update(`${NOW}\n${hashOfEmpty}`).digest('base64');

    expect(check({ body: Buffer.alloc(0), signature })).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it.each([
    ['exactly 5 min old', NOW - 300_000, true],
    ['exactly 5 min ahead', NOW + 300_000, true],
    ['5 min + 1 ms old', NOW - 300_001, false],
    ['5 min + 1 ms ahead', NOW + 300_001, false],
    ['a day old', NOW - 86_400_000, false],
  ])('when the timestamp is %s, then ok is %s', (_case, ts, ok) => {
    const res = check({ timestamp: String(ts) });

    expect(res).toEqual(ok ? { ok: true } : { ok: false, reason: 'stale_timestamp' });
  });

  it('when the timestamp is in seconds instead of ms, then it is stale', () => {
    expect(check({ timestamp: String(Math.floor(NOW / 1000)) })).toEqual({ ok: false, reason: 'stale_timestamp' });
  });

  it.each([
    ['empty', ''],
    ['negative', `-${NOW}`],
    ['fractional', `${NOW}.5`],
    ['ISO date', new Date(NOW).toISOString()],
    ['hex', `0x${NOW.toString(16)}`],
    ['too long', '9'.repeat(30)],
  ])('when the timestamp is %s, then it is a bad timestamp', (_case, ts) => {
    expect(check({ timestamp: ts, signature: sdkSign(BODY, ts) })).toEqual({ ok: false, reason: 'bad_timestamp' });
  });

  it('when signed with another secret, then it fails', () => {
    const signature = sdkSign(BODY, String(NOW), 'another-secret');

    expect(check({ signature })).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('when the secret is used base64-decoded instead of as-is, then it fails', () => {
    const contentHash = createHash('sha256').update(BODY).digest('base64');
    const signature = createHmac('sha256', Buffer.from(SECRET, 'base64'))
      .update(`${NOW}\n${contentHash}`)
      .digest('base64');

    expect(check({ signature })).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('when one byte of the body changes after signing, then it fails', () => {
    const signature = sdkSign(BODY, String(NOW));
    const tampered = Buffer.from(BODY);
    tampered[10] = (tampered[10] ?? 0) ^ 0x01;

    expect(check({ body: tampered, signature })).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('when the body is re-serialized (the \\/ escapes dropped), then it fails: only the raw bytes verify', () => {
    const signature = sdkSign(BODY, String(NOW));
    const reserialized = Buffer.from(JSON.stringify(JSON.parse(BODY.toString('utf8'))), 'utf8');

    expect(check({ body: reserialized, signature })).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('when the timestamp differs from the one signed, then it fails', () => {
    const signature = sdkSign(BODY, String(NOW - 1));

    expect(check({ signature })).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('when the signature is sent without its = padding, then it still verifies', () => {
    const signature = sdkSign(BODY, String(NOW)).replace(/=+$/, '');

    expect(check({ signature })).toEqual({ ok: true });
  });

  it.each([
    ['empty', ''],
    ['not base64', 'not a signature!'],
    ['in the base64url alphabet', 'q-Vv_c2Vj-mV0LXNl_3JldC1zZWNyZXQtc2VjcmV0LXM='],
    ['hex of the HMAC', createHmac('sha256', SECRET).update('x').digest('hex')],
    ['padding in the middle', 'AAAA=AAAA'],
    ['very long', 'A'.repeat(10_000)],
  ])('when the signature is %s, then it fails without throwing', (_case, signature) => {
    expect(() => check({ signature })).not.toThrow();
    expect(check({ signature })).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it.each([
    ['16 bytes', 16],
    ['31 bytes', 31],
    ['33 bytes', 33],
    ['64 bytes', 64],
  ])('when the signature decodes to %s, then it fails without throwing', (_case, n) => {
    const real = Buffer.from(sdkSign(BODY, String(NOW)), 'base64');
    const signature = Buffer.concat([real, real, real]).subarray(0, n).toString('base64');

    expect(check({ signature })).toEqual({ ok: false, reason: 'bad_signature' });
  });
});
