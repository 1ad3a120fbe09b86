// The HTTP ceiling: bare Fastify routes that answer like the service's without doing any work, in
// a child process started the way the service is (`node --import tsx`, same CPU). A workload's
// figure divided by the ceiling measured in the same run is what we track, because absolute
// numbers drift on shared machines.
//   GET  /:id     → 302 with a Location as long as a campaign redirect's, empty body
//   POST /ingest  → parses a JSON body (600 bytes from the bench), 202 with a body like init's
//   POST /ingest-durable → the same, answered only once the body is appended to a local file and
//                   fdatasync'd (concurrent bodies share one write and one fdatasync): the most a
//                   durable ingest could reach on this machine if it wrote a local log instead of
//                   committing in Postgres before its 2xx (the README's ingest notes)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Fastify from 'fastify';
import { ROOT } from '../../src/lib/paths.ts';
import { type Child, startNodeChild, stopChild } from './child.ts';
import { freePort } from './ports.ts';

// A Play listing with our referrer, as the service's Android redirect sends it.
export const CEILING_LOCATION =
  'https://play.google.com/store/apps/details?id=com.example.bench&referrer=lr_click_id%3DAbCdEfGhJkMnPqRsTuVw%26utm_source%3Dbench';
const INIT_LIKE_ANSWER = JSON.stringify({
  processing_id: 'pr_AbCdEfGhJkMnPqRsTuVwXyZ2',
  status: 'accepted',
  message: 'Install event accepted for processing',
  success: true,
});

/** Appends lines to one file; each append resolves once a later fdatasync covered it (group commit). */
function durableLog(file: string): (line: string) => Promise<void> {
  const fd = fs.openSync(file, 'a');
  let pending: { line: string; done: (err?: Error) => void }[] = [];
  let busy = false;
  const flush = (): void => {
    if (busy || pending.length === 0) {
      return;
    }
    busy = true;
    const group = pending;
    pending = [];
    const settle = (err: Error | null) => {
      for (const w of group) {
        w.done(err ?? undefined);
      }
      busy = false;
      flush();
    };
    fs.write(fd, group.map((w) => w.line).join(''), (err) => {
      if (err) {
        settle(err);
        return;
      }
      fs.fdatasync(fd, settle);
    });
  };
  return (line) =>
    new Promise<void>((resolve, reject) => {
      pending.push({ line, done: (err) => (err ? reject(err) : resolve()) });
      flush();
    });
}

async function serve(port: number): Promise<void> {
  const app = Fastify({ logger: false });
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'attribution-ceiling-'));
  const append = durableLog(path.join(logDir, 'ingest.log'));
  app.get('/:id', (_req, reply) => {
    reply
      .code(302)
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .header('location', CEILING_LOCATION)
      .send();
  });
  app.post('/ingest', (req, reply) => {
    // Touch the parsed body, as a route reading its fields would.
    const ok = typeof req.body === 'object' && req.body !== null;
    reply
      .code(ok ? 202 : 400)
      .type('application/json')
      .send(INIT_LIKE_ANSWER);
  });
  app.post('/ingest-durable', async (req, reply) => {
    const ok = typeof req.body === 'object' && req.body !== null;
    if (ok) {
      await append(`${JSON.stringify(req.body)}\n`);
    }
    return reply
      .code(ok ? 202 : 400)
      .type('application/json')
      .send(INIT_LIKE_ANSWER);
  });
  app.addHook('onClose', async () => {
    fs.rmSync(logDir, { recursive: true, force: true });
  });
  await app.listen({ port, host: '127.0.0.1' });
  process.stdout.write(`ceiling server listening on ${port}\n`);
  const stop = () => {
    void app.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // The bench holds our stdin open; when it goes away (even killed), so do we.
  process.stdin.on('end', stop);
  process.stdin.resume();
}

export type CeilingServer = { url: string; pid: number; stop: () => Promise<void> };

export async function startCeilingServer(cpu: number | undefined): Promise<CeilingServer> {
  const port = await freePort();
  // TMPDIR as the bench's: the durable route's file sits on the disk the service's temp DATA_DIR uses.
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    TMPDIR: os.tmpdir(),
    PORT: String(port),
  };
  const child: Child = startNodeChild('ceiling server', path.join(ROOT, 'bench/lib/ceiling-server.ts'), env, cpu);
  await child.waitForOutput(/ceiling server listening/, 30_000);
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    stop: async () => {
      await stopChild(child, 5000);
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  serve(Number(process.env.PORT)).catch((err: unknown) => {
    process.stderr.write(`ceiling server failed: ${String(err)}\n`);
    process.exit(1);
  });
}
