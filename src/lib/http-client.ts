// Outbound HTTP to ad networks and webhooks: a hard time limit covering the whole exchange, a cap on
// how much of the answer is kept, and no redirects (an operator-set URL must not be bounced
// elsewhere). Failures are classified so callers can tell "try again later" (timeout, network)
// from "this will not work". The status decides an answer: a long body is cut at the cap, never an
// error (a 200 with a big page is still a 200, a 503 with one still a 503). A caller that must
// control where the socket connects gives a lookup (public-address.ts): the request then goes
// through node:http(s) with it, and an address it refuses fails the call as 'blocked'.
import type { LookupFunction } from 'node:net';
import { NON_PUBLIC_CODE } from './public-address.ts';
import { postWithLookup } from './request-with-lookup.ts';

export type HttpFailure = 'timeout' | 'network' | 'redirect' | 'bad_url' | 'blocked';

export class HttpCallError extends Error {
  constructor(
    readonly kind: HttpFailure,
    message: string,
  ) {
    super(message);
  }
}

/** `complete` is false when the body was cut: longer than maxBytes, or (cutSlowBody) still open. */
export type HttpResponse = { status: number; body: string; complete: boolean };

export type PostOptions = {
  contentType: string;
  timeoutMs: number;
  maxBytes: number;
  headers?: Record<string, string>;
  /**
   * Once the status line and headers are in, a body that is still arriving at the time limit (or
   * breaks off) is returned as far as it came, instead of failing the call as a timeout. For
   * callers whose answer is its status (webhooks); callers that must read the body keep the default.
   */
  cutSlowBody?: boolean;
  /** Resolves the host for the socket (and judges an IP literal host); fetch's resolver otherwise. */
  lookup?: LookupFunction;
};

/** A URL's user:password@ part, wherever it appears in a text (error messages quote URLs). */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi;

/** The text with every URL's credentials replaced, so they never reach an error, a log or a row. */
export const redactUserinfo = (text: string): string => text.replace(USERINFO, '$1***@');

type Body = { text: string; complete: boolean };

const bodyOf = (chunks: Uint8Array[], maxBytes: number, complete: boolean): Body => ({
  // A multi-byte character split at the cap decodes as U+FFFD: harmless in a summary.
  text: Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8'),
  complete,
});

/**
 * The body up to maxBytes, read until deadlineMs on a timer of its own: the fetch signal firing
 * after the headers did not always end a pending read (about 1 in 25 locally, Node 20), which
 * left the call, and the job behind it, waiting on an endpoint that never closes its answer.
 */
async function readCapped(
  stream: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  deadlineMs: number,
  cutSlowBody: boolean,
): Promise<Body> {
  if (!stream) {
    return { text: '', complete: true };
  }
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<'expired'>((resolve) => {
    timer = setTimeout(() => resolve('expired'), Math.max(0, deadlineMs - Date.now()));
  });
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), expired]);
      if (next === 'expired') {
        reader.cancel().catch(() => undefined);
        if (cutSlowBody) {
          return bodyOf(chunks, maxBytes, false);
        }
        throw Object.assign(new Error('body read timed out'), { name: 'TimeoutError' });
      }
      if (next.done) {
        return bodyOf(chunks, maxBytes, true);
      }
      chunks.push(next.value);
      size += next.value.byteLength;
      if (size > maxBytes) {
        // Enough for the log and the callers' checks; the rest is not downloaded.
        reader.cancel().catch(() => undefined);
        return bodyOf(chunks, maxBytes, false);
      }
    }
  } catch (err) {
    if (!cutSlowBody) {
      throw err;
    }
    // The answer broke off (or the fetch signal fired) after its status arrived: the status stands.
    return bodyOf(chunks, maxBytes, false);
  } finally {
    clearTimeout(timer);
  }
}

function classify(err: unknown, timeoutMs: number): HttpCallError {
  if (err instanceof HttpCallError) {
    return err;
  }
  const e = err as { name?: string; code?: string; message?: string; cause?: { message?: string } };
  if (e.code === NON_PUBLIC_CODE) {
    return new HttpCallError('blocked', e.message ?? 'not a public address');
  }
  if (e.name === 'TimeoutError' || e.name === 'AbortError') {
    return new HttpCallError('timeout', `no complete answer within ${timeoutMs} ms`);
  }
  const cause = redactUserinfo(e.cause?.message ?? e.message ?? String(err));
  if (/redirect/i.test(cause)) {
    return new HttpCallError('redirect', 'the server answered with a redirect (not followed)');
  }
  return new HttpCallError('network', cause);
}

/**
 * fetch refuses a URL with credentials (a TypeError that reads like a network failure and quotes
 * the password); such a URL is refused here, before anything is sent, and never quoted.
 */
function checkUrl(url: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new HttpCallError('bad_url', 'not an absolute URL');
  }
  if (u.username !== '' || u.password !== '') {
    throw new HttpCallError('bad_url', 'the URL holds credentials (user:password@), which are never sent');
  }
}

/** POSTs a body and returns the status and (the first maxBytes of) the answer, whatever the status. */
export async function postText(url: string, body: string, opts: PostOptions): Promise<HttpResponse> {
  checkUrl(url);
  const deadline = Date.now() + opts.timeoutMs;
  const headers = { ...opts.headers, 'content-type': opts.contentType, accept: 'application/json' };
  const signal = AbortSignal.timeout(opts.timeoutMs);
  try {
    const res = opts.lookup
      ? await postWithLookup(new URL(url), body, headers, opts.lookup, signal)
      : await fetch(url, { method: 'POST', body, headers, redirect: 'error', signal });
    const answer = await readCapped(res.body, opts.maxBytes, deadline, opts.cutSlowBody === true);
    return { status: res.status, body: answer.text, complete: answer.complete };
  } catch (err) {
    throw classify(err, opts.timeoutMs);
  }
}
