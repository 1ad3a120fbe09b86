// Real load with a ledger: virtual devices run the SDK's flow (init → trigger → capture-event with
// an event_id → capture-payment with a payment_id) against the service over HTTP, and every
// request's record key, status (or connection error code) and timing is written down. A flow stops
// at its first non-2xx step (the app would retry later), so an acked event always has an acked user.
import { randomUUID } from 'node:crypto';
import { sleep } from './wait.ts';

export type Kind = 'init' | 'trigger' | 'event' | 'payment';
export type Rec = {
  kind: Kind;
  key: string;
  /** HTTP status, or the connection error's code (ECONNREFUSED, ECONNRESET, TIMEOUT, ...). */
  status: number | string;
  msg: string;
  startMs: number;
  endMs: number;
};
export type Device = { iid: string; userId: string };

const PATHS: Record<Kind, string> = {
  init: 'init',
  trigger: 'trigger',
  event: 'capture-event',
  payment: 'capture-payment',
};

export const is2xx = (r: Pick<Rec, 'status'>) => typeof r.status === 'number' && r.status >= 200 && r.status < 300;

export class Ledger {
  readonly recs: Rec[] = [];
  /** Devices whose trigger was acked: registered users the duplicate test can reuse. */
  readonly registered: Device[] = [];
  private readonly t0 = performance.now();
  now(): number {
    return performance.now() - this.t0;
  }
}

function errorCode(err: unknown): string {
  const e = err as { name?: string; code?: string; cause?: { code?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') {
    return 'TIMEOUT';
  }
  return e.cause?.code ?? e.code ?? 'ERROR';
}

export function body(kind: Kind, token: string, d: Device, key: string): Record<string, unknown> {
  const base = { token, platform: 'ANDROID', install_instance_id: d.iid };
  switch (kind) {
    case 'init':
      return { ...base, device_data: { device_name: 'fault-suite', system_version: '14' } };
    case 'trigger':
      return { ...base, user_data: { id: d.userId } };
    case 'event':
      return { ...base, event_name: 'level_up', event_id: key, event_data: { level: 3 } };
    case 'payment':
      return { ...base, amount: 4.99, payment_id: key, type: 'ONE_TIME' };
  }
}

/** Sends one client request and records it; `key` is the record it stores (install, user, event or payment id). */
export async function send(
  ledger: Ledger,
  baseUrl: string,
  token: string,
  kind: Kind,
  d: Device,
  key: string,
): Promise<Rec> {
  const startMs = ledger.now();
  let status: number | string;
  let msg = '';
  try {
    const res = await fetch(`${baseUrl}/api/client/${PATHS[kind]}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body(kind, token, d, key)),
      signal: AbortSignal.timeout(30_000),
    });
    status = res.status;
    const text = await res.text();
    msg = /"msg":"([^"]*)"/.exec(text)?.[1] ?? /"message":"([^"]*)"/.exec(text)?.[1] ?? '';
  } catch (err) {
    status = errorCode(err);
  }
  const rec: Rec = { kind, key, status, msg, startMs, endMs: ledger.now() };
  ledger.recs.push(rec);
  return rec;
}

async function flow(ledger: Ledger, baseUrl: string, token: string): Promise<boolean> {
  const d: Device = { iid: randomUUID(), userId: `u-${randomUUID()}` };
  if (!is2xx(await send(ledger, baseUrl, token, 'init', d, d.iid))) {
    return false;
  }
  if (!is2xx(await send(ledger, baseUrl, token, 'trigger', d, d.userId))) {
    return false;
  }
  ledger.registered.push(d);
  if (!is2xx(await send(ledger, baseUrl, token, 'event', d, `ev-${randomUUID()}`))) {
    return false;
  }
  return is2xx(await send(ledger, baseUrl, token, 'payment', d, `pay-${randomUUID()}`));
}

export type Load = { stop: () => Promise<void> };

/** Runs `workers` devices in a closed loop until stop(); a failed flow backs off briefly. */
export function startLoad(opts: {
  ledger: Ledger;
  baseUrl: string;
  token: string;
  workers: number;
  thinkMs?: number;
}): Load {
  let stopped = false;
  const loops = Array.from({ length: opts.workers }, async () => {
    while (!stopped) {
      const ok = await flow(opts.ledger, opts.baseUrl, opts.token);
      await sleep(ok ? (opts.thinkMs ?? 10) : 200);
    }
  });
  return {
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}
