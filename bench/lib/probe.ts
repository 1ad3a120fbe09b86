// Open-loop pacing for latency probes: task i starts at t0 + i / rate whether or not earlier ones
// have finished, so a slow server cannot slow the offered load down (no coordinated omission).
// Requests use the global fetch (undici) with its keep-alive pool, never following redirects.

export async function paced<T>(count: number, ratePerS: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const t0 = performance.now();
  const running: Promise<T>[] = [];
  for (let i = 0; i < count; i++) {
    const due = t0 + (i * 1000) / ratePerS;
    const wait = due - performance.now();
    if (wait > 1) {
      await new Promise((r) => setTimeout(r, wait));
    }
    running.push(task(i));
  }
  return Promise.all(running);
}

export type Timed<T> = { status: number; ms: number; body: T; headers: Headers };

/** One request; ms is from send to the end of the body. */
export async function timedFetch<T = unknown>(url: string, init: RequestInit): Promise<Timed<T>> {
  const t = performance.now();
  const res = await fetch(url, { ...init, redirect: 'manual' });
  const text = await res.text();
  const ms = performance.now() - t;
  let body: unknown = text;
  if ((res.headers.get('content-type') ?? '').includes('json') && text !== '') {
    body = JSON.parse(text);
  }
  return { status: res.status, ms, body: body as T, headers: res.headers };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
