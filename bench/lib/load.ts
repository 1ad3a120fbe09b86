// Closed-loop HTTP load with autocannon, run from the bench process (never inside the server).
// Each run is a warm-up (JIT, connection pools; discarded) and then the measured window. Latencies
// are taken per response from autocannon's 'response' event in float ms: autocannon's own histogram
// rounds to whole milliseconds, too coarse for a ceiling that answers in under a millisecond.
import autocannon from 'autocannon';
import { type CpuUse, watchCpu } from './layout.ts';
import { type LatencySummary, SampleBuffer, summarize } from './stats.ts';

export type LoadSettings = { connections: number; durationS: number; warmupS: number };

export type HttpRequest = { method: 'GET' | 'POST'; path: string; headers: Record<string, string>; body?: string };

export type LoadResult = {
  durationS: number;
  connections: number;
  responses: number;
  /** Responses whose status counted as success for this run (3xx for redirects, 2xx otherwise). */
  ok: number;
  okPerS: number;
  statusCounts: Record<string, number>;
  errors: number;
  timeouts: number;
  /** Latency of the successful responses, in ms. */
  latency: LatencySummary;
  /** CPU cores used during the measured window, by process. */
  cpu: CpuUse;
};

function options(url: string, requests: HttpRequest[], connections: number, durationS: number): autocannon.Options {
  return {
    url,
    connections,
    pipelining: 1,
    duration: durationS,
    // autocannon follows no redirects: a 302 is an answer, as a store redirect is for the browser.
    requests: requests.map((r) => ({ method: r.method, path: r.path, headers: r.headers, body: r.body })),
    timeout: 10,
  };
}

function run(opts: autocannon.Options, onResponse?: (status: number, ms: number) => void): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(opts, (err, result) => (err ? reject(err) : resolve(result)));
    if (onResponse) {
      instance.on('response', (_client, status, _bytes, ms) => onResponse(status, ms));
    }
  });
}

export async function runLoad(
  url: string,
  requests: HttpRequest[],
  settings: LoadSettings,
  opts: { isOk: (status: number) => boolean; serverPid?: number; warmup?: HttpRequest[] },
): Promise<LoadResult> {
  if (settings.warmupS > 0) {
    await run(options(url, opts.warmup ?? requests, settings.connections, settings.warmupS));
  }
  const samples = new SampleBuffer();
  const statusCounts: Record<string, number> = {};
  let responses = 0;
  let ok = 0;
  const cpu = watchCpu(opts.serverPid);
  const result = await run(options(url, requests, settings.connections, settings.durationS), (status, ms) => {
    responses += 1;
    statusCounts[status] = (statusCounts[status] ?? 0) + 1;
    if (opts.isOk(status)) {
      ok += 1;
      samples.push(ms);
    }
  });
  const usage = cpu.stop();
  return {
    durationS: result.duration,
    connections: settings.connections,
    responses,
    ok,
    okPerS: ok / result.duration,
    statusCounts,
    errors: result.errors,
    timeouts: result.timeouts,
    latency: summarize(samples.values()),
    cpu: usage,
  };
}

export const is2xx = (s: number): boolean => s >= 200 && s < 300;
export const is3xx = (s: number): boolean => s >= 300 && s < 400;
