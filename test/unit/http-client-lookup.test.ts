// postText with a lookup (lib/http-client.ts, request-with-lookup.ts): the socket connects to the
// address the lookup answered, so the address checked is the address connected to (no second DNS
// query to rebind), while the Host header keeps the name; a lookup that refuses the address
// (public-address.ts) fails the call as 'blocked' before anything is sent, an IP literal host
// included; a redirect is not followed.
import type { LookupFunction } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpCallError, type PostOptions, postText } from '../../src/lib/http-client.ts';
import { publicOnlyLookup } from '../../src/lib/public-address.ts';
import { FakeAnalytics } from '../support/fake-analytics.ts';

const fake = new FakeAnalytics();
let port = '';
beforeAll(async () => {
  port = new URL(await fake.start()).port;
});
afterAll(() => fake.stop());

/** A lookup that answers 127.0.0.1 for every name, without judging it. */
const toLoopback: LookupFunction = (_host, options, callback) =>
  options.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4);

const opts = (lookup: LookupFunction): PostOptions => ({
  contentType: 'application/json',
  timeoutMs: 2000,
  maxBytes: 1024,
  lookup,
});

async function failure(p: Promise<unknown>): Promise<HttpCallError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HttpCallError);
  return err as HttpCallError;
}

describe('postText with a lookup', () => {
  it('when the lookup answers an address, then the request goes there with the name in Host', async () => {
    const res = await postText(`http://vendor.invalid:${port}/posthog/batch/`, '{"tag":"pinned"}', opts(toLoopback));

    expect(res).toEqual({ status: 200, body: '{"status":1}', complete: true });
    const hit = fake.hits.find((x) => x.body.includes('pinned'));
    expect(hit?.headers.host).toBe(`vendor.invalid:${port}`);
    expect(hit?.headers['content-type']).toBe('application/json');
  });

  it('when the name resolves to 127.0.0.1 only, then the call fails as blocked and nothing is sent', async () => {
    const rebinding = publicOnlyLookup(async () => [{ address: '127.0.0.1', family: 4 }]);

    const err = await failure(
      postText(`http://rebind.example.com:${port}/posthog/batch/`, '{"tag":"rebind"}', opts(rebinding)),
    );

    expect(err.kind).toBe('blocked');
    expect(err.message).toMatch(/^rebind\.example\.com resolves to 127\.0\.0\.1, not a public address/);
    expect(fake.hits.filter((x) => x.body.includes('rebind'))).toHaveLength(0);
  });

  it.each(['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]'])(
    'when the host is the IP literal %s, then the call fails as blocked and nothing is sent',
    async (host) => {
      const err = await failure(
        postText(`http://${host}:${port}/posthog/batch/`, '{"tag":"literal"}', opts(publicOnlyLookup())),
      );

      expect(err.kind).toBe('blocked');
      expect(fake.hits.filter((x) => x.body.includes('literal'))).toHaveLength(0);
    },
  );

  it('when the answer is a redirect, then it is not followed', async () => {
    fake.answerNext('posthog', 1, 302);

    const err = await failure(postText(`http://vendor.invalid:${port}/posthog/batch/`, '{}', opts(toLoopback)));

    expect(err.kind).toBe('redirect');
  });
});
