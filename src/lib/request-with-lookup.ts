// A POST through node:http(s) whose socket resolves its host with a given lookup, for the callers
// that must control which address is connected to (fetch takes no lookup). The name stays in the
// URL, so the Host header, TLS SNI and the certificate check are the name's. An IP literal is never
// looked up by the socket: it is passed through the lookup here first, so the same rule judges it.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { Readable } from 'node:stream';

export type LookupResponse = { status: number; body: ReadableStream<Uint8Array> | null };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function checkLiteral(host: string, lookup: LookupFunction): Promise<void> {
  return new Promise((resolve, reject) => {
    lookup(host, { all: true }, (err) => (err ? reject(err) : resolve()));
  });
}

/** Rejects with the socket's error, or 'unexpected redirect' for a 3xx (never followed). */
export async function postWithLookup(
  url: URL,
  body: string,
  headers: Record<string, string>,
  lookup: LookupFunction,
  signal: AbortSignal,
): Promise<LookupResponse> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) !== 0) {
    await checkLiteral(host, lookup);
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup,
        signal,
        // A socket of its own: a kept-alive one could have been opened without this lookup.
        agent: false,
      },
      (res) => {
        if (REDIRECTS.has(res.statusCode ?? 0)) {
          res.destroy();
          reject(new Error('unexpected redirect'));
          return;
        }
        resolve({ status: res.statusCode ?? 0, body: Readable.toWeb(res) as ReadableStream<Uint8Array> });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
