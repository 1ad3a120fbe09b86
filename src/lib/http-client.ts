// Outbound HTTP to ad networks: a hard time limit covering the whole exchange, a cap on the
// response size, and no redirects (an operator-set URL must not be bounced elsewhere). Failures are
// classified so callers can tell "try again later" (timeout, network) from "this will not work".
export type HttpFailure = 'timeout' | 'network' | 'redirect' | 'too_large';

export class HttpCallError extends Error {
  constructor(
    readonly kind: HttpFailure,
    message: string,
  ) {
    super(message);
  }
}

export type HttpResponse = { status: number; body: string };

async function readCapped(res: Response, maxBytes: number): Promise<string> {
  if (!res.body) {
    return '';
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      await res.body.cancel().catch(() => undefined);
      throw new HttpCallError('too_large', `response larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function classify(err: unknown, timeoutMs: number): HttpCallError {
  if (err instanceof HttpCallError) {
    return err;
  }
  const e = err as { name?: string; message?: string; cause?: { message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') {
    return new HttpCallError('timeout', `no complete answer within ${timeoutMs} ms`);
  }
  const cause = e.cause?.message ?? e.message ?? String(err);
  if (/redirect/i.test(cause)) {
    return new HttpCallError('redirect', 'the server answered with a redirect (not followed)');
  }
  return new HttpCallError('network', cause);
}

/** POSTs a body and returns the status and text of the answer, whatever the status. */
export async function postText(
  url: string,
  body: string,
  opts: { contentType: string; timeoutMs: number; maxBytes: number; headers?: Record<string, string> },
): Promise<HttpResponse> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      body,
      headers: { ...opts.headers, 'content-type': opts.contentType, accept: 'application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(opts.timeoutMs),
    });
    return { status: res.status, body: await readCapped(res, opts.maxBytes) };
  } catch (err) {
    throw classify(err, opts.timeoutMs);
  }
}
