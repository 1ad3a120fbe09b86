// GET /api/v1/audiences/export as a stream (README "Audience exports", "Answer"): over a real socket
// (app.inject cannot show chunked framing), a whole file ends with the HTTP trailers holding the
// counts, and a ClickHouse failure after the first page (5,000 users) cuts the response off without
// its last chunk, so no client takes it for whole. A failure before the first byte answers the error
// envelope; the domain's chunks end with the error after the pages read.
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import type { Deps } from '../../../src/deps.ts';
import { exportAudience } from '../../../src/domain/audiences/export-audience.ts';
import { parseAudienceQuery } from '../../../src/http/parse/v1/audiences.ts';
import { bulkProject, eventAt, failingAfter, landFacts, seedUser } from '../../support/audiences.ts';
import { useClientHarness } from '../../support/client.ts';
import { newProject, type TestProject, withAppOver } from '../../support/harness.ts';
import { listenOnLoopback } from '../../support/raw-http.ts';

const h = useClientHarness();

const WINDOW = { event: 'purchase', from: '2025-04-01', to: '2025-04-30' };
const PLAIN = new URLSearchParams({ ...WINDOW, format: 'plain' }).toString();

type Got = {
  status: number;
  body: string;
  complete: boolean;
  trailers: Record<string, string | undefined>;
  error?: string;
};

/** GET the export over HTTP/1.1 on `port`; resolves however the response ends (whole, cut off, refused). */
function get(port: number, p: TestProject, query: string): Promise<Got> {
  return new Promise((resolve) => {
    const req = http.get(
      { host: '127.0.0.1', port, path: `/api/v1/audiences/export?${query}`, headers: { ...p.headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        const done = (error?: string) =>
          resolve({ status: res.statusCode ?? 0, body, complete: res.complete, trailers: { ...res.trailers }, error });
        res.on('end', () => done());
        res.on('error', (e) => done(e.message));
        res.on('aborted', () => done('aborted'));
      },
    );
    req.on('error', (e) => resolve({ status: 0, body: '', complete: false, trailers: {}, error: e.message }));
  });
}

describe('200 over a socket', () => {
  it('when a two-page segment is read over HTTP, then every line arrives and the trailers give the counts', async () => {
    const p = await bulkProject(h().deps, 5001);

    const got = await withAppOver(h(), {}, async (app) => get(await listenOnLoopback(app), p, PLAIN));

    expect(got.status).toBe(200);
    expect(got.complete).toBe(true);
    expect(got.body.trimEnd().split('\n')).toHaveLength(5002);
    expect(got.trailers).toEqual({ 'x-audience-rows': '5001', 'x-audience-skipped': '0' });
  });

  it('when ClickHouse goes down after the first page, then the response is cut off: incomplete, no trailers', async () => {
    const p = await bulkProject(h().deps, 5001);

    const got = await withAppOver(h(), { ch: failingAfter(h().deps.ch, 1) }, async (app) =>
      get(await listenOnLoopback(app), p, PLAIN),
    );

    expect(got.status).toBe(200);
    expect(got.body.split('\n')[1]).toMatch(/^bulk-00001,/);
    expect(got.complete).toBe(false);
    expect(got.trailers).toEqual({});
  });
});

describe('failures', () => {
  it('when ClickHouse fails on the first page, then the answer is the error envelope, not a CSV', async () => {
    const p = await newProject(h().deps);

    const res = await withAppOver(h(), { ch: failingAfter(h().deps.ch, 0) }, (app) =>
      app.inject({
        method: 'GET',
        url: '/api/v1/audiences/export',
        query: { ...WINDOW, format: 'meta' },
        headers: p.headers,
      }),
    );

    expect(res.statusCode).toBe(500);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.json()).toEqual({ msg: 'Internal server error', status: 500 });
  });

  it('when ClickHouse fails on a later page, then the chunks end with the error after the pages read', async () => {
    const p = await newProject(h().deps);
    for (const u of ['f1', 'f2', 'f3']) {
      await seedUser(h(), p, { userId: u, email: `${u}@example.com` });
      await eventAt(h(), p, u, 'purchase', '2025-04-10T10:00:00Z');
    }
    await landFacts(h());
    const input = parseAudienceQuery({ ...WINDOW, format: 'plain' });
    const deps = { ...h().deps, ch: failingAfter(h().deps.ch, 1) } as Deps;

    const out = await exportAudience(deps, p.project, input, { pageUsers: 2 });
    const read: string[] = [];
    const failure = await (async () => {
      for await (const chunk of out.chunks) {
        read.push(chunk);
      }
    })().catch((err: Error) => err.message);

    expect(
      read
        .join('')
        .split('\n')
        .map((l) => l.split(',')[0]),
    ).toEqual(['user_id', 'f1', 'f2', '']);
    expect(failure).toBe('connect ECONNREFUSED');
  });
});
