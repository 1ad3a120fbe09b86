// One HTTP attempt of a delivery, classified the way every outgoing delivery retries:
// 2xx sent; 5xx, 429, 408, a timeout or a network failure retried later; any other 4xx never retried
// (the request itself is wrong); a redirect, a URL that cannot be sent or an address the caller's
// lookup refuses ('blocked') is not retried (misconfiguration). The status decides: the answer's
// body only fills the log (and Meta's events_received check), so a long body is cut at
// RESPONSE_MAX_BYTES, never a failure. A caller's `redact` cleans the whole answer before the cut.
import type { LookupFunction } from 'node:net';
import { HttpCallError, postText, redactUserinfo } from '../../lib/http-client.ts';

export type AttemptOutcome = 'sent' | 'retry' | 'dead';
export type AttemptResult = { outcome: AttemptOutcome; httpStatus: number; latencyMs: number; summary: string };

const SUMMARY_MAX = 500;
export const RESPONSE_MAX_BYTES = 64 * 1024;

export const summarize = (s: string): string => (s.length > SUMMARY_MAX ? `${s.slice(0, SUMMARY_MAX - 1)}…` : s);

export function classifyStatus(status: number): AttemptOutcome {
  if (status >= 200 && status < 300) {
    return 'sent';
  }
  return status >= 500 || status === 429 || status === 408 ? 'retry' : 'dead';
}

/** The answer's body as the caller's check sees it: `complete` is false when it was cut. */
export type AnswerCheck = (body: string, complete: boolean) => string | undefined;

type AttemptOptions = {
  timeoutMs: number;
  headers?: Record<string, string>;
  accept?: AnswerCheck;
  cutSlowBody?: boolean;
  /** application/json unless given (Amplitude's Identify API takes a form). */
  contentType?: string;
  /** Resolves the host for the socket (see postText); a refused address makes the attempt dead. */
  lookup?: LookupFunction;
  /** Applied to the whole answer (or error) before it is cut to the summary: no secret half-kept. */
  redact?: (text: string) => string;
};

/**
 * POSTs JSON; `accept` may turn a 2xx with an unexpected answer into a retry. `cutSlowBody`: a body
 * still open at the time limit is cut there instead of making the attempt a timeout (see postText).
 */
export async function sendAttempt(url: string, body: string, opts: AttemptOptions): Promise<AttemptResult> {
  return (await exchangeAttempt(url, body, opts)).result;
}

/**
 * sendAttempt, with the whole answer too (redacted as the summary is; '' when none came), for a
 * caller that reads it further (analytics: the users a vendor names as refused).
 */
export async function exchangeAttempt(
  url: string,
  body: string,
  opts: AttemptOptions,
): Promise<{ result: AttemptResult; answer: string }> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  const clean = opts.redact ?? ((text: string) => text);
  try {
    const res = await postText(url, body, {
      contentType: opts.contentType ?? 'application/json',
      timeoutMs: opts.timeoutMs,
      maxBytes: RESPONSE_MAX_BYTES,
      headers: opts.headers,
      cutSlowBody: opts.cutSlowBody,
      lookup: opts.lookup,
    });
    const outcome = classifyStatus(res.status);
    const problem = outcome === 'sent' ? opts.accept?.(res.body, res.complete) : undefined;
    const answer = clean(res.body);
    const result: AttemptResult = {
      outcome: problem ? 'retry' : outcome,
      httpStatus: res.status,
      latencyMs: latency(),
      summary: summarize(problem === undefined ? answer : clean(problem)),
    };
    return { result, answer };
  } catch (err) {
    const e = err instanceof HttpCallError ? err : new HttpCallError('network', redactUserinfo(String(err)));
    const outcome: AttemptOutcome = e.kind === 'timeout' || e.kind === 'network' ? 'retry' : 'dead';
    const summary = summarize(clean(`${e.kind}: ${e.message}`));
    return { result: { outcome, httpStatus: 0, latencyMs: latency(), summary }, answer: '' };
  }
}
