// projects set-attribution: windows and methods per project, validated, read back by the engine.
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.ts';
import { attributionSettings } from '../../src/domain/attribution/settings.ts';
import { findAttributionSettings } from '../../src/store/postgres/attribution-settings.ts';
import { newProject, testEnv, useHarness } from '../support/harness.ts';

const h = useHarness();

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, await testEnv(), { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('projects set-attribution', () => {
  it('when windows and methods are set, then the engine reads them and the rest keep their defaults', async () => {
    const p = await newProject(h().deps);
    const r = await cli([
      'projects',
      'set-attribution',
      '--project',
      p.project.id,
      '--fingerprint-window-hours',
      '6',
      '--click-lookback-hours',
      '48',
      '--disable',
      'fingerprint',
      '--json',
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({
      fingerprint_window_hours: 6,
      click_lookback_hours: 48,
      reattribution_window_days: 90,
    });
    const s = attributionSettings(await findAttributionSettings(h().deps.sql, p.project.id));
    expect(s.fingerprintWindowMs).toBe(6 * 3600_000);
    expect(s.clickLookbackMs).toBe(48 * 3600_000);
    expect(s.methods).toEqual({
      playReferrer: true,
      link: true,
      adId: true,
      fingerprint: false,
      networkResolvers: true,
    });
  });

  it('when a value is out of range or a method unknown, then exit 2 names it and nothing changes', async () => {
    const p = await newProject(h().deps);
    const bad = await cli(['projects', 'set-attribution', '--project', p.project.id, '--click-lookback-hours', '0']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--click-lookback-hours');
    const unknown = await cli(['projects', 'set-attribution', '--project', p.project.id, '--disable', 'telepathy']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('telepathy');
    expect(await findAttributionSettings(h().deps.sql, p.project.id)).toEqual({});
  });
});
