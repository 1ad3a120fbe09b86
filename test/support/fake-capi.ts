// A local fake of Meta's Conversions API (POST /{version}/{dataset_id}/events) that enforces what
// Meta enforces and what our catalog D8 asks of us: an access token, 1 to 1,000 events, contact
// fields (em, ph, external_id) as 64-hex SHA-256 only, no raw '@' anywhere in the request, the
// 7-day limit (one stale event rejects the whole request), and the commerce fields of the spec.
// A test commands it: ok, 500, 429, hang (never answers) or 400, for the next N requests or all.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeMode = 'ok' | '500' | '429' | 'hang' | '400';
export type CapiRequest = { path: string; body: Record<string, unknown>; status: number; eventIds: string[] };

const HEX64 = /^[a-f0-9]{64}$/;
const WEEK_S = 7 * 24 * 3600;

function checkEvent(e: Record<string, unknown>, nowS: number): string | undefined {
  for (const k of ['event_name', 'event_time', 'event_id', 'action_source', 'user_data']) {
    if (e[k] === undefined) {
      return `missing ${k}`;
    }
  }
  if (typeof e.event_time !== 'number' || nowS - e.event_time > WEEK_S) {
    return 'event_time more than 7 days old';
  }
  const u = e.user_data as Record<string, unknown>;
  for (const k of ['em', 'ph', 'external_id']) {
    const v = u[k];
    if (v !== undefined && !(Array.isArray(v) && v.every((x) => typeof x === 'string' && HEX64.test(x)))) {
      return `user_data.${k} must be SHA-256 hashed`;
    }
  }
  if (['Purchase', 'AddToCart', 'ViewContent'].includes(String(e.event_name))) {
    const c = (e.custom_data ?? {}) as Record<string, unknown>;
    if (!c.content_ids && !c.item_group_ids) {
      return 'custom_data needs content_ids or item_group_ids';
    }
    if (!Array.isArray(c.contents) || typeof c.content_type !== 'string') {
      return 'custom_data needs contents and content_type';
    }
    if (e.event_name !== 'ViewContent' && (typeof c.value !== 'number' || typeof c.currency !== 'string')) {
      return 'custom_data needs value and currency';
    }
    if (e.event_name === 'Purchase' && typeof c.order_id !== 'string') {
      return 'Purchase needs order_id';
    }
  }
  return undefined;
}

export function checkCapiBody(raw: string, nowS: number): string | undefined {
  if (raw.includes('@')) {
    return "raw '@' in the request (unhashed email?)";
  }
  const body = JSON.parse(raw) as { data?: unknown; access_token?: unknown };
  if (typeof body.access_token !== 'string' || body.access_token === '') {
    return 'missing access_token';
  }
  if (!Array.isArray(body.data) || body.data.length === 0 || body.data.length > 1000) {
    return 'data must hold 1 to 1000 events';
  }
  for (const e of body.data as Record<string, unknown>[]) {
    const problem = checkEvent(e, nowS);
    if (problem) {
      return problem;
    }
  }
  return undefined;
}

export class FakeCapi {
  readonly requests: CapiRequest[] = [];
  private modes: FakeMode[] = [];
  private server: Server | undefined;
  private hung: ServerResponse[] = [];
  mode: FakeMode = 'ok';
  url = '';

  /** The next `n` requests answer `mode`, then the standing mode applies again. */
  failNext(n: number, mode: FakeMode): void {
    this.modes.push(...Array<FakeMode>(n).fill(mode));
  }

  /** event_ids Meta accepted, in order (a repeat shows up twice). */
  accepted(): string[] {
    return this.requests.filter((r) => r.status === 200).flatMap((r) => r.eventIds);
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    for (const r of this.hung) {
      r.destroy();
    }
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) {
      chunks.push(c as Buffer);
    }
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {}
    const data = Array.isArray(body.data) ? (body.data as Record<string, unknown>[]) : [];
    const eventIds = data.map((e) => String(e.event_id));
    const mode = this.modes.shift() ?? this.mode;
    const record = (status: number) => this.requests.push({ path: req.url ?? '', body, status, eventIds });
    if (mode === 'hang') {
      record(0);
      this.hung.push(res);
      return;
    }
    const problem =
      mode === 'ok' && /^\/v\d+\.\d+\/\d+\/events$/.test(req.url ?? '')
        ? checkCapiBody(raw, Date.now() / 1000)
        : undefined;
    const status = problem ? 400 : mode === 'ok' ? 200 : Number(mode);
    record(status);
    const answer =
      status === 200
        ? { events_received: data.length, messages: [], fbtrace_id: 'AbCdEf' }
        : { error: { message: problem ?? `fake ${mode}`, type: 'OAuthException', code: status === 400 ? 100 : 2 } };
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  }
}
