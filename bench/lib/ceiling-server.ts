// The HTTP ceiling: bare Fastify routes that answer like the service's without doing any work, in
// a child process started the way the service is (`node --import tsx`, same CPU). A workload's
// figure divided by the ceiling measured in the same run is what we track, because absolute
// numbers drift on shared machines.
//   GET  /:id     → 302 with a Location as long as a campaign redirect's, empty body
//   POST /ingest  → parses a JSON body (600 bytes from the bench), 202 with a body like init's
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

async function serve(port: number): Promise<void> {
  const app = Fastify({ logger: false });
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
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', PORT: String(port) };
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
