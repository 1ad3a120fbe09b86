// README "Security notes": "Logs are pino JSON on stdout. The service-key, linkrunner-key,
// authorization and cookie headers are redacted, and so are tokens, server keys, e-mail addresses
// and phone numbers, wherever they appear in logged objects (replaced with `[redacted]`)."
// An e-mail address the caller puts in the URL (a reporting search, a user id that is an
// e-mail address on DELETE /api/v1/users/:user_id) reached the default (info) access log.
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { newProject, useHarness } from '../support/harness.ts';

describe('README Security notes: e-mail addresses never reach the logs', () => {
  const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

  async function logsOf(run: (app: Awaited<ReturnType<typeof buildApp>>) => Promise<void>): Promise<string> {
    let out = '';
    const log = createLogger(
      'info', // the default LOG_LEVEL
      new Writable({
        write(chunk, _enc, done) {
          out += String(chunk);
          done();
        },
      }),
    );
    const app = await buildApp({ ...h().deps, log });
    try {
      await run(app);
    } finally {
      await app.close();
    }
    return out;
  }

  it('when a reporting search names an e-mail address, then no log line holds it', async () => {
    const p = await newProject(h().deps);
    const email = `alice.${randomUUID().slice(0, 8)}@example.org`;
    const out = await logsOf(async (app) => {
      const res = await app.inject({
        method: 'GET',
        url: `/api/v1/reporting/campaigns?search=${encodeURIComponent(email)}`,
        headers: p.headers,
      });
      expect(res.statusCode).toBe(200);
    });
    expect(out).toContain('incoming request');
    const local = email.split('@')[0] as string;
    expect(out.includes(local) ? out.split('\n').filter((l) => l.includes(local)) : []).toEqual([]);
  });

  it('when a user whose id is an e-mail address is deleted (DELETE /api/v1/users/:user_id), then no log line holds it', async () => {
    const p = await newProject(h().deps);
    const email = `bob.${randomUUID().slice(0, 8)}@example.org`;
    const out = await logsOf(async (app) => {
      const res = await app.inject({
        method: 'DELETE',
        url: `/api/v1/users/${encodeURIComponent(email)}`,
        headers: p.headers,
      });
      expect(res.statusCode).toBeLessThan(500);
    });
    expect(out).toContain('incoming request');
    const local = email.split('@')[0] as string;
    expect(out.includes(local) ? out.split('\n').filter((l) => l.includes(local)) : []).toEqual([]);
  });
});
