// README "Quick start": on SIGINT/SIGTERM "The server stops accepting requests (new ones get 503)
// and finishes the requests in flight." README "Envelope": "Error: {"msg": "...", "status": <HTTP
// status>}", and "API": "Every answer is documented with its body: the {msg, status} envelope for
// every error" (/openapi.json documents 503 on every /api operation with that envelope).
// A request that reaches the draining server on an open keep-alive connection (what a load balancer
// or an SDK's pooled HTTP client sends) is such a 503, so it carries the envelope too (it had
// Fastify's own {error, message, statusCode} body: a README hunt).
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { newProject, useHarness } from '../support/harness.ts';
import { fetchDoc } from '../support/openapi.ts';
import { listenOnLoopback } from '../support/raw-http.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a request that reaches the server while it shuts down', () => {
  it('when a keep-alive connection sends a request after close began, then its 503 is the {msg, status} envelope', async () => {
    const p = await newProject(h().deps);
    const doc = await fetchDoc(h().app);
    const app = await buildApp(h().deps);
    let release: () => void = () => {};
    let started: () => void = () => {};
    const inFlight = new Promise<void>((r) => {
      started = r;
    });
    // A request in flight when the signal comes (a slow query, say) keeps the connection open.
    app.get('/test/slow', async () => {
      started();
      await new Promise<void>((r) => {
        release = r;
      });
      return { done: true };
    });
    const port = await listenOnLoopback(app);
    const req = (url: string, connection: string) =>
      [
        `GET ${url} HTTP/1.1`,
        'Host: localhost',
        `service-key: ${p.serverKey}`,
        `connection: ${connection}`,
        '',
        '',
      ].join('\r\n');
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (c) => {
      data += c;
    });
    const ended = new Promise<void>((r) => socket.on('close', () => r()));
    socket.write(req('/test/slow', 'keep-alive'));
    await inFlight;

    const closing = app.close(); // what SIGTERM does first (src/main.ts stop())
    await sleep(50);
    socket.write(req('/api/v1/campaigns', 'close'));
    await sleep(50);
    release();
    await Promise.race([ended, sleep(5000)]);
    socket.destroy();
    await closing;

    const answers = data.split(/(?=HTTP\/1\.1 \d{3} )/);
    const late = answers.find((a) => !a.includes('"done":true')) ?? '';
    expect(late, data).toMatch(/^HTTP\/1\.1 503/);
    const body = JSON.parse(late.slice(late.indexOf('\r\n\r\n') + 4));
    expect(body).toEqual({ msg: 'Service temporarily unavailable. Please retry later.', status: 503 });
    expect(late).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(late).toMatch(/\r\nconnection: close\r\n/i);
    // The documented 503 of this operation is that envelope.
    const documented = doc.paths['/api/v1/campaigns']?.get?.responses?.['503'];
    expect(documented).toBeDefined();
  });
});
