// A ClickHouse server, as far as the service's HTTP client can tell: ClickHouse's HTTP interface
// (port 8123 semantics) in front of the real engine (chdb) of this test process. What it does like a
// server, since the service's server client relies on it:
//   - user/password (Basic auth, X-ClickHouse-User/Key headers or user/password URL parameters):
//     wrong ones answer 403 `Code: 516 ... (AUTHENTICATION_FAILED)`; GET /ping needs none;
//   - `database` names the current database (an unknown one answers 404 `Code: 81 ... (UNKNOWN_DATABASE)`);
//   - every other URL parameter is a setting of that request only, and `param_<name>` a query
//     parameter. The engine keeps a SET for its session, a server does not: every setting an earlier
//     request changed is put back to its default first, so no insert dedup token leaks from one
//     request into the next (a server never does that);
//   - `query` (URL) + the body make the statement (an insert's rows follow its INSERT … FORMAT line).
// Requests run one at a time (the engine session is one), which only makes it slower.
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { Session } from 'chdb';

const HTTP_ONLY = new Set([
  'wait_end_of_query',
  'send_progress_in_http_headers',
  'http_response_buffer_size',
  'http_headers_progress_interval_ms',
  'http_send_progress_interval_ms',
  'enable_http_compression',
  'http_zlib_compression_level',
  'http_response_compression_method',
  'http_native_compression_disable_checksumming_on_decompress',
  'compress',
  'decompress',
  'buffer_size',
  'quota_key',
  'session_timeout',
  'session_check',
]);
const RESERVED = new Set(['query', 'database', 'query_id', 'session_id', 'user', 'password', 'default_format']);

export type Front = {
  url: string;
  /** Statements and their outcome, in order (for assertions on what reached ClickHouse). */
  log: { sql: string; status: number; settings: Record<string, string> }[];
  /** Runs SQL on the engine directly (default database), JSONEachRow rows. */
  rows: <T>(sql: string, params?: Record<string, string>) => Promise<T[]>;
  /** Drops every connection while down (ClickHouse unreachable). */
  setDown: (down: boolean) => void;
  /** The password the front takes from now on (a rotated password). */
  setPassword: (password: string) => void;
  close: () => Promise<void>;
};

const lit = (v: string) => `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

export async function startClickHouseFront(opts: { user: string; password: string }): Promise<Front> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ch-front-'));
  const session = new Session(dir);
  const defaults = new Map<string, string>();
  const dirty = new Set<string>();
  let chain: Promise<unknown> = Promise.resolve();
  let down = false;
  let currentPassword = opts.password;
  const log: Front['log'] = [];

  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = chain.then(fn, fn);
    chain = run.catch(() => {});
    return run;
  };

  async function defaultOf(name: string): Promise<string> {
    if (!defaults.has(name)) {
      const r = await session.queryAsync(
        `SELECT default FROM system.settings WHERE name = ${lit(name)} FORMAT JSONEachRow`,
        {},
      );
      const row = r.text().trim();
      defaults.set(name, row ? (JSON.parse(row) as { default: string }).default : '');
    }
    return defaults.get(name) as string;
  }

  /** One request's statement: its database, its settings (others reset), its params. */
  async function run(
    sql: string,
    settings: Record<string, string>,
    params: Record<string, string>,
    database: string,
  ): Promise<Buffer> {
    return exclusive(async () => {
      const pre: string[] = [`USE ${database}`];
      for (const name of dirty) {
        if (!(name in settings)) {
          pre.push(`SET ${name} = ${lit(await defaultOf(name))}`);
        }
      }
      for (const [k, v] of Object.entries(settings)) {
        await defaultOf(k);
        pre.push(`SET ${k} = ${lit(v)}`);
        dirty.add(k);
      }
      for (const [k, v] of Object.entries(params)) {
        pre.push(`SET param_${k} = ${lit(v)}`);
      }
      const r = await session.queryAsync(`${pre.join('; ')}; ${sql}`, { format: 'TabSeparated' });
      return Buffer.from(r.bytes());
    });
  }

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://front');
    if (down) {
      req.socket.destroy();
      return;
    }
    if (url.pathname === '/ping' || (req.method === 'GET' && url.pathname === '/' && !url.searchParams.has('query'))) {
      res.end('Ok.\n');
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) {
      chunks.push(c as Buffer);
    }
    let bodyBuf = Buffer.concat(chunks);
    if (req.headers['content-encoding'] === 'gzip') {
      bodyBuf = zlib.gunzipSync(bodyBuf);
    }
    const body = bodyBuf.toString('utf8');
    const fail = (status: number, code: number, type: string, message: string) => {
      res.statusCode = status;
      res.setHeader('X-ClickHouse-Exception-Code', String(code));
      res.end(`Code: ${code}. DB::Exception: ${message}. (${type}) (version 25.8.1.1)\n`);
    };

    // Credentials, as a server checks them.
    let user = url.searchParams.get('user') ?? (req.headers['x-clickhouse-user'] as string | undefined);
    let password = url.searchParams.get('password') ?? (req.headers['x-clickhouse-key'] as string | undefined);
    const auth = req.headers.authorization;
    if (auth?.startsWith('Basic ')) {
      const decoded = Buffer.from(auth.slice(6), 'base64').toString('utf8');
      const i = decoded.indexOf(':');
      user = decoded.slice(0, i);
      password = decoded.slice(i + 1);
    }
    user = user || 'default';
    password = password ?? '';
    if (user !== opts.user || password !== currentPassword) {
      fail(
        403,
        516,
        'AUTHENTICATION_FAILED',
        `${user}: Authentication failed: password is incorrect, or there is no user with such name`,
      );
      return;
    }

    const database = url.searchParams.get('database') || 'default';
    const settings: Record<string, string> = {};
    const params: Record<string, string> = {};
    for (const [k, v] of url.searchParams) {
      if (k.startsWith('param_')) {
        params[k.slice(6)] = v;
      } else if (!RESERVED.has(k) && !HTTP_ONLY.has(k)) {
        settings[k] = v;
      }
    }
    const q = url.searchParams.get('query');
    const sql = q ? (body ? `${q}\n${body}` : q) : body;
    try {
      const known = await exclusive(async () => {
        const r = await session.queryAsync(
          `SELECT count() AS n FROM system.databases WHERE name = ${lit(database)} FORMAT JSONEachRow`,
          {},
        );
        return Number((JSON.parse(r.text().trim()) as { n: string }).n) > 0;
      });
      if (!known) {
        log.push({ sql, status: 404, settings });
        fail(404, 81, 'UNKNOWN_DATABASE', `Database ${database} does not exist`);
        return;
      }
      const out = await run(sql, settings, params, database);
      log.push({ sql, status: 200, settings });
      res.setHeader('X-ClickHouse-Summary', '{}');
      if (/FORMAT\s+JSONEachRow\s*$/i.test(sql)) {
        res.setHeader('Content-Type', 'application/x-ndjson; charset=UTF-8');
      }
      res.end(out);
    } catch (err) {
      const msg = (err as Error).message;
      log.push({ sql, status: 500, settings });
      const m = /Code: (\d+)\. DB::Exception: ([\s\S]*?)\. \((\w+)\)/.exec(msg);
      if (m) {
        fail(m[3] === 'UNKNOWN_TABLE' ? 404 : 500, Number(m[1]), m[3] as string, m[2] as string);
      } else {
        fail(500, 1001, 'STD_EXCEPTION', msg.replace(/\n/g, ' '));
      }
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    log,
    rows: async <T>(sql: string, params: Record<string, string> = {}) => {
      const out = await run(`${sql}\nFORMAT JSONEachRow`, {}, params, 'default');
      return out
        .toString('utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as T);
    },
    setDown: (d) => {
      down = d;
    },
    setPassword: (p) => {
      currentPassword = p;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await chain.catch(() => {});
      session.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
