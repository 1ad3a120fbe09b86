// A local webhook receiver: records each POST (headers, raw body) and answers the status it is told
// (200 by default; failNext queues other statuses).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type WebhookHit = { headers: IncomingHttpHeaders; body: string; status: number };

export class FakeWebhook {
  readonly hits: WebhookHit[] = [];
  private statuses: number[] = [];
  private server: Server | undefined;
  url = '';

  failNext(n: number, status: number): void {
    this.statuses.push(...Array<number>(n).fill(status));
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const status = this.statuses.shift() ?? 200;
        this.hits.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks/attribution`;
    return this.url;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}
