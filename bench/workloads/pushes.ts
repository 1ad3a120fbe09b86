// Workload `pushes`: the daily uninstall pass end to end. N installs with push tokens (200k; 20k with
// --quick; BENCH_PUSH_TOKENS=1000000 for the full million) are seeded in Postgres with the
// project's FCM and APNs credentials sealed as the CLI stores them, 3 : 2 Android : iOS, with a
// history (bench/lib/push-seed.ts): 7 % of tokens answer gone (2 % on their 3rd failed day, so
// the pass marks them uninstalled and writes `uninstalls` facts), 1 % answer an error, 2 % are
// skipped (pushed today, uninstalled). Then runUninstallPass, the function the uninstall-pass job
// calls, runs once with the real senders (projectSenders: unseal, OAuth2 JWT exchange, FCM HTTP v1
// and APNs over HTTP/2) against local fakes in a child process (bench/lib/push-fakes.ts).
//
// Where it runs: in the bench process (one worker, the job's default batches of 500 and 8 in
// flight), against the Postgres of the service the bench started (svc.pgUrl). That is the database
// the worker uses (embedded mode: the service's own embedded Postgres, on the bench's CPU), and the
// service's fact writer drains the pass's `uninstalls` outbox rows into ClickHouse, where they are
// counted after the service stopped. The pass's credentials are sealed under a SECRETS_KEY of the
// bench's own, so in service mode (a shared database) other projects' credentials do not unseal and
// their installs are skipped, never pushed or changed. Each repetition has its own project and
// retires its tokens at the end, so the next repetition's pass sees only its own installs.
//
// Figures: tokens/s over the whole pass (keyset reads, sends, the per-batch UPDATEs and outbox
// inserts), the projected time for 1 M tokens, and the target of issue #7 (1 M within an hour on one
// worker: ≥ 278 tokens/s). The ceiling is the same senders alone in the same repetition (same fakes,
// token mix, batches and concurrency, no Postgres; 50k tokens, 10k with --quick), so the ratio is
// the share of the send rate the pass keeps. Checks: every expected token pushed exactly once (the
// fakes' counts), every install in its expected state, one `uninstalls` fact per uninstall; and three
// daily passes with an advancing clock over 1,000 new tokens (10 % gone: uninstalled on day 3).
// The fakes answer at once by default, so the figure is the pass's own cost (CPU, Postgres);
// BENCH_PUSH_FAKE_MS=100 adds a round trip to every push, where the bound is the senders'
// concurrency instead. This replaces the earlier sender-only `pushes` figure (FCM alone, against
// the bare POST ceiling): that rate is now this workload's ceiling.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import { closeDeps, createPgDeps, type PgDeps } from '../../src/deps.ts';
import { projectSenders } from '../../src/domain/uninstalls/project-senders.ts';
import { runUninstallPass, utcDay } from '../../src/domain/uninstalls/run-uninstall-pass.ts';
import { waitForBacklog } from '../lib/facts.ts';
import { matchingPushes, sendersAlone } from '../lib/push-ceiling.ts';
import { startPushFakes } from '../lib/push-fakes.ts';
import {
  checkPushState,
  createPushProject,
  DAY_CLASSES,
  expectedOf,
  retirePushTokens,
  seedPushInstalls,
  THREE_DAY_CLASSES,
} from '../lib/push-seed.ts';
import { round } from '../lib/stats.ts';
import type { Harness, Workload } from '../lib/workload.ts';

const BATCH = 500;
const IN_FLIGHT = 8;
const THREE_DAY_TOKENS = 1_000;
const DAY_MS = 86_400_000;
const ONE_HOUR_RATE = Math.ceil(1_000_000 / 3600);

/** BENCH_PUSH_FAKE_MS: the fakes answer after this long (a network round trip to FCM / APNs); default 0. */
function fakeDelayMs(): number {
  const env = Number(process.env.BENCH_PUSH_FAKE_MS);
  return Number.isInteger(env) && env > 0 ? env : 0;
}

function tokenCount(quick: boolean): number {
  const env = Number(process.env.BENCH_PUSH_TOKENS);
  return Number.isInteger(env) && env > 0 ? env : quick ? 20_000 : 200_000;
}

/** The pass's pino lines (progress every 10 s, done) as bench progress lines. */
function passLogger(h: Harness): pino.Logger {
  return pino(
    { level: 'info', base: null, timestamp: false },
    {
      write(line: string) {
        const { msg, level: _l, ...rest } = JSON.parse(line) as Record<string, unknown>;
        h.progress(`pushes: ${String(msg)} ${JSON.stringify(rest)}`);
      },
    },
  );
}

/** Three daily passes (clock advanced a day each) over new tokens; answers installs in the expected state. */
async function threeDays(deps: PgDeps, log: pino.Logger, projectId: string, startMs: number) {
  const day0 = utcDay(startMs + DAY_MS);
  await seedPushInstalls(deps.sql, projectId, THREE_DAY_CLASSES, THREE_DAY_TOKENS, day0);
  for (let d = 1; d <= 3; d++) {
    const at = startMs + d * DAY_MS;
    await runUninstallPass({ sql: deps.sql, log, now: () => at }, projectSenders(deps), {
      batchSize: BATCH,
      concurrency: IN_FLIGHT,
    });
  }
  const check = await checkPushState(deps.sql, projectId, THREE_DAY_CLASSES, day0);
  return { ok: check.reduce((s, c) => s + c.ok, 0), check };
}

export const workload: Workload = {
  name: 'pushes',
  summary:
    'the daily uninstall pass end to end (Postgres + real senders → local fake FCM/APNs): 200k tokens, 20k with --quick; BENCH_PUSH_TOKENS=1000000 for 1 M, BENCH_PUSH_FAKE_MS=N for a round trip',
  order: 40,
  metrics: [
    {
      id: 'pass_tokens_per_s',
      label: 'uninstall pass tokens/s (PG + fakes)',
      unit: 'token/s',
      better: 'higher',
      ceiling: 'senders alone, same fakes and tokens',
      target: { on: 'value', atLeast: ONE_HOUR_RATE, text: `≥ ${ONE_HOUR_RATE}/s (1 M within an hour)` },
    },
    {
      id: 'pass_1m_minutes',
      label: 'uninstall pass, 1 M tokens (projected)',
      unit: 'min',
      better: 'lower',
      target: { on: 'value', atMost: 60, text: '≤ 60 min' },
    },
    {
      id: 'pass_pushes',
      label: 'pushes received by the fakes',
      unit: 'push',
      better: 'higher',
      ceiling: 'tokens due today',
      target: { on: 'ratio', atLeast: 1, atMost: 1, text: 'each once, by outcome (= 1.00)' },
    },
    {
      id: 'pass_state_ok',
      label: 'installs in the expected state',
      unit: 'install',
      better: 'higher',
      ceiling: 'installs seeded (1 pass + 3-day run)',
      target: { on: 'ratio', atLeast: 1, text: 'all (≥ 1.00)' },
    },
    {
      id: 'uninstall_facts',
      label: 'uninstalls facts in ClickHouse',
      unit: 'row',
      better: 'higher',
      ceiling: 'uninstalls expected',
      target: { on: 'ratio', atLeast: 1, atMost: 1, text: 'each once (= 1.00)' },
    },
  ],
  async run(h) {
    const n = tokenCount(h.quick);
    const { svc } = await h.service();
    const fakes = await startPushFakes(fakeDelayMs());
    const log = passLogger(h);
    const config = loadConfig({
      DATABASE_URL: svc.pgUrl,
      DATA_DIR: os.tmpdir(),
      LOG_LEVEL: 'info',
      SECRETS_KEY: randomBytes(32).toString('hex'),
      FCM_BASE_URL: fakes.fcmBase,
      FCM_OAUTH_TOKEN_URL: `${fakes.fcmBase}/token`,
      APNS_BASE_URL: fakes.apnsBase,
    });
    const deps = await createPgDeps(config, log, { migrate: false });
    try {
      const projectId = await createPushProject(deps, `bench pushes ${h.runId} r${h.rep}`);
      const day = utcDay(Date.now());
      let t0 = performance.now();
      await seedPushInstalls(deps.sql, projectId, DAY_CLASSES, n, day, (done) =>
        h.progress(`pushes: seeded ${done.toLocaleString('en-US')}/${n.toLocaleString('en-US')} installs`),
      );
      const seedS = (performance.now() - t0) / 1000;
      const ceiling = await sendersAlone(deps, projectId, h.quick ? 10_000 : 50_000, {
        batch: BATCH,
        inFlight: IN_FLIGHT,
      });
      h.progress(`pushes: senders alone ${round(ceiling, 0)} tokens/s`);
      await fakes.reset();

      t0 = performance.now();
      const tally = await runUninstallPass({ sql: deps.sql, log, now: Date.now }, projectSenders(deps), {
        batchSize: BATCH,
        concurrency: IN_FLIGHT,
      });
      const passS = (performance.now() - t0) / 1000;
      const expected = expectedOf(DAY_CLASSES, n);
      const pushes = await fakes.stats();
      const state = await checkPushState(deps.sql, projectId, DAY_CLASSES, day);
      await retirePushTokens(deps.sql, projectId);
      const perS = expected.sent / passS;
      h.progress(
        `pushes: pass ${expected.sent.toLocaleString('en-US')} tokens in ${round(passS, 1)} s = ${round(perS, 0)}/s (1 M: ${round(1e6 / perS / 60, 1)} min)`,
      );

      const three = await createPushProject(deps, `bench pushes 3 days ${h.runId} r${h.rep}`);
      const threeCheck = await threeDays(deps, log, three, Date.now());
      await retirePushTokens(deps.sql, three);
      const threeExpected = expectedOf(THREE_DAY_CLASSES, THREE_DAY_TOKENS);

      const { received, matching } = matchingPushes(pushes, expected.pushes);
      // The service's fact writer moves the uninstalls to ClickHouse; the next workload starts after.
      const drain = [
        await waitForBacklog(svc.pgUrl, projectId, 60_000),
        await waitForBacklog(svc.pgUrl, three, 60_000),
      ];
      const stateOk = state.reduce((s, c) => s + c.ok, 0) + threeCheck.ok;
      const uninstallsExpected = expected.uninstalls + threeExpected.uninstalls;
      return {
        measures: {
          pass_tokens_per_s: { value: round(perS, 0), ceiling: round(ceiling, 0) },
          pass_1m_minutes: { value: round(1e6 / perS / 60, 1) },
          pass_pushes: { value: matching, ceiling: expected.sent },
          pass_state_ok: { value: stateOk, ceiling: n + THREE_DAY_TOKENS },
        },
        details: {
          tokens: n,
          fake_delay_ms: fakeDelayMs(),
          seed_s: round(seedS, 1),
          pass_s: round(passS, 1),
          batch: BATCH,
          in_flight: IN_FLIGHT,
          tally,
          pushes_received: { total: received, ...pushes },
          pushes_expected: expected.pushes,
          state,
          three_days: threeCheck.check,
          drain,
        },
        afterStop: async (facts) => {
          const a = await facts.countByPrefix('uninstalls', 'install_instance_id', projectId, 'pb');
          const b = await facts.countByPrefix('uninstalls', 'install_instance_id', three, 'pb');
          return {
            measures: { uninstall_facts: { value: a.rows + b.rows, ceiling: uninstallsExpected } },
            details: {
              uninstall_facts: { pass: a, three_days: b, expected: [expected.uninstalls, threeExpected.uninstalls] },
            },
          };
        },
      };
    } finally {
      await closeDeps(deps);
      await fakes.stop();
    }
  },
};
