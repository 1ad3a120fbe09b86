// projects set-billing: suspends or restores a project's billing; while suspended, reporting
// answers 402 with the payment link (spec: Errors 402).
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.ts';
import { newProject, testEnv, useHarness } from '../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, await testEnv(), { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const report = (headers: Record<string, string>, query = '') =>
  h().app.inject({ method: 'GET', url: `/api/v1/reporting/campaigns${query}`, headers });

describe('projects set-billing', () => {
  it('when billing is suspended with a link, then reporting answers 402 with it; restored, 200', async () => {
    const p = await newProject(h().deps);

    const on = await cli([
      'projects',
      'set-billing',
      '--project',
      p.project.id,
      '--suspended',
      'true',
      '--payment-link',
      'https://pay.example.com/inv/7',
      '--json',
    ]);
    const suspended = await report(p.headers);
    const off = await cli(['projects', 'set-billing', '--project', p.project.id, '--suspended', 'false']);
    const restored = await report(p.headers, '?limit=2');

    expect(on.code).toBe(0);
    expect(JSON.parse(on.out)).toEqual({
      project_id: p.project.id,
      billing_suspended: true,
      payment_link: 'https://pay.example.com/inv/7',
    });
    expect(suspended.statusCode).toBe(402);
    expect(suspended.json()).toEqual({
      msg: 'Billing account suspended. Complete the payment at payment_link to restore reporting.',
      status: 402,
      payment_link: 'https://pay.example.com/inv/7',
    });
    expect(off).toMatchObject({ code: 0, out: 'billing active (payment link https://pay.example.com/inv/7)' });
    expect(restored.statusCode).toBe(200);
  });

  it('when a flag is bad or the project unknown, then exit 2 names it and nothing changes', async () => {
    const p = await newProject(h().deps);

    const bad = await cli(['projects', 'set-billing', '--project', p.project.id, '--suspended', 'maybe']);
    const link = await cli([
      'projects',
      'set-billing',
      '--project',
      p.project.id,
      '--suspended',
      'true',
      '--payment-link',
      'ftp://x',
    ]);
    const unknown = await cli([
      'projects',
      'set-billing',
      '--project',
      '00000000-0000-0000-0000-000000000000',
      '--suspended',
      'true',
    ]);

    expect(bad).toMatchObject({ code: 2 });
    expect(bad.err).toContain("--suspended 'maybe' must be true or false");
    expect(link).toMatchObject({ code: 2 });
    expect(link.err).toContain("--payment-link 'ftp://x' must be an http(s) URL");
    expect(unknown.code).toBe(2);
    expect((await report(p.headers)).statusCode).toBe(200);
  });
});
