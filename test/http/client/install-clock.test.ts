// An install's time has one clock: the API's (deps.now, the same that stamps its init's
// install_events row and every later fact). installs.created_at took Postgres' now(), another clock
// (another machine in service mode, and the start of a pipelined group's transaction): an init just
// before a local midnight could get an install_day a day off its own install row's day, and the
// install fell out of its retention cohort (day_n -1 is dropped) or counted its day 0 as day 1.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { attribute, flushFacts, init } from '../../support/client.ts';
import { chJson, newProject, useHarness } from '../../support/harness.ts';

const h = useHarness({ env: { RATE_LIMITS_ENABLED: 'false' } });

afterEach(() => {
  h().deps.now = Date.now;
});

describe('install time', () => {
  it("when an app inits a moment before the project's local midnight, then its install row, install_day and cohort day 0 share that day", async () => {
    const { deps } = h();
    const p = await newProject(deps, { timezone: 'Asia/Kolkata' });
    // 2026-03-10 23:59:59.900 in Kolkata (UTC+05:30), far from the real clock's day.
    const at = Date.parse('2026-03-10T18:29:59.900Z');
    deps.now = () => at;
    const iid = randomUUID();
    expect((await init(h(), p.token, { install_instance_id: iid })).statusCode).toBe(202);
    await attribute(h(), p, iid);
    await flushFacts(h());

    const [row] = await chJson<{ day: string; install_day: string; ts: string; install_ts: string }>(
      deps.ch,
      `SELECT toString(day) AS day, toString(install_day) AS install_day, toString(ts) AS ts,
         toString(install_ts) AS install_ts
       FROM install_events WHERE project_id = {p:String} AND kind = 'install'`,
      { p: p.project.id },
    );
    expect(row).toEqual({
      day: '2026-03-10',
      install_day: '2026-03-10',
      ts: '2026-03-10 18:29:59.900',
      install_ts: '2026-03-10 18:29:59.900',
    });
    const cohort = await chJson<{ install_day: string; day_n: number; active: string }>(
      deps.ch,
      `SELECT toString(install_day) AS install_day, day_n, toString(uniqMerge(active)) AS active
       FROM retention_cohort WHERE project_id = {p:String} GROUP BY install_day, day_n`,
      { p: p.project.id },
    );
    expect(cohort).toEqual([{ install_day: '2026-03-10', day_n: 0, active: '1' }]);
  });
});
