// Data of the `pushes` workload: a project with FCM and APNs credentials stored the way the product
// stores them (validated and sealed by setPushCredentials), and N installs with push tokens seeded
// in one INSERT … SELECT from generate_series per 100k rows. Install i gets a class from i % 100
// (the table below: its token's answer at the fake, its uninstall state before the pass, and the
// state the pass must leave), and is Android/FCM or iOS/APNs by (i / 100) % 5 (3 : 2). The same
// table, passed as arrays, checks the state afterwards, so the figures cannot come from a pass that
// is fast but wrong.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { PgDeps } from '../../src/deps.ts';
import { setPushCredentials } from '../../src/domain/uninstalls/set-push-credentials.ts';
import type { Sql } from '../../src/store/postgres/pool.ts';
import { insertProject } from '../../src/store/postgres/projects.ts';
import type { PushFakeStats } from './push-fakes.ts';

type Answer = 'delivered' | 'gone' | 'error';
type State = { failures: number; lastDay: number | null; uninstalled: boolean };
/** k in [from, to) of i % 100. lastDay is relative to the pass's UTC day (null: never pushed). */
export type PushClass = { name: string; from: number; to: number; answer: Answer; before: State; after: State };

const st = (failures: number, lastDay: number | null, uninstalled = false): State => ({
  failures,
  lastDay,
  uninstalled,
});

/** One day's pass over installs with a history (most were pushed yesterday). */
export const DAY_CLASSES: PushClass[] = [
  { name: 'gone, 1st failed day', from: 0, to: 5, answer: 'gone', before: st(0, -1), after: st(1, 0) },
  { name: 'gone, 3rd failed day', from: 5, to: 7, answer: 'gone', before: st(2, -1), after: st(3, 0, true) },
  { name: 'delivered after a failed day', from: 7, to: 10, answer: 'delivered', before: st(1, -1), after: st(0, 0) },
  { name: 'push service error', from: 10, to: 11, answer: 'error', before: st(0, -1), after: st(0, -1) },
  { name: 'already pushed today', from: 11, to: 12, answer: 'delivered', before: st(0, 0), after: st(0, 0) },
  { name: 'uninstalled earlier', from: 12, to: 13, answer: 'gone', before: st(3, -3, true), after: st(3, -3, true) },
  { name: 'delivered', from: 13, to: 100, answer: 'delivered', before: st(0, -1), after: st(0, 0) },
];

/** New tokens through three daily passes (the `after` state is after the third; days 0, 1, 2). */
export const THREE_DAY_CLASSES: PushClass[] = [
  { name: 'gone 3 days', from: 0, to: 10, answer: 'gone', before: st(0, null), after: st(3, 2, true) },
  { name: 'push service error', from: 10, to: 12, answer: 'error', before: st(0, null), after: st(0, null) },
  { name: 'delivered', from: 12, to: 100, answer: 'delivered', before: st(0, null), after: st(0, 2) },
];

const isSent = (c: PushClass) => !c.before.uninstalled && c.before.lastDay !== 0;
const isAndroid = (i: number) => Math.floor(i / 100) % 5 < 3;
const classOf = (classes: PushClass[], i: number) => classes.find((c) => i % 100 >= c.from && i % 100 < c.to);

export type Expected = { pushes: PushFakeStats; sent: number; uninstalls: number; installs: number };

/** What one pass (or, for THREE_DAY_CLASSES, each pass's pushes; uninstalls at the end) must produce. */
export function expectedOf(classes: PushClass[], n: number): Expected {
  const pushes: PushFakeStats = {
    fcm: { delivered: 0, gone: 0, error: 0 },
    apns: { delivered: 0, gone: 0, error: 0 },
  };
  let uninstalls = 0;
  for (let i = 0; i < n; i++) {
    const c = classOf(classes, i);
    if (c && isSent(c)) {
      pushes[isAndroid(i) ? 'fcm' : 'apns'][c.answer] += 1;
      uninstalls += c.after.uninstalled ? 1 : 0;
    }
  }
  const sent = Object.values(pushes).reduce((s, p) => s + p.delivered + p.gone + p.error, 0);
  return { pushes, sent, uninstalls, installs: n };
}

const columns = (classes: PushClass[]) => ({
  k: classes.flatMap((c) => Array.from({ length: c.to - c.from }, (_, j) => c.from + j)),
  at: <T extends string | number | boolean>(f: (c: PushClass) => T): T[] =>
    classes.flatMap((c) => Array.from({ length: c.to - c.from }, () => f(c))),
});

/** A project of its own (one per repetition), with FCM and APNs credentials sealed as the CLI stores them. */
export async function createPushProject(deps: Pick<PgDeps, 'sql' | 'config'>, name: string): Promise<string> {
  const p = await insertProject(deps.sql, {
    name,
    timezone: 'UTC',
    displayCurrency: 'USD',
    token: `pt_bench_${randomBytes(12).toString('hex')}`,
    website: null,
  });
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  await setPushCredentials(deps, p.id, 'FCM', {
    project_id: 'bench-app',
    client_email: 'bench@bench-app.iam.gserviceaccount.com',
    private_key: rsa.export({ type: 'pkcs8', format: 'pem' }).toString(),
  });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  await setPushCredentials(deps, p.id, 'APNS', {
    key_id: 'BENCHKEY01',
    team_id: 'BENCHTEAM1',
    bundle_id: 'com.example.bench',
    private_key: ec.export({ type: 'pkcs8', format: 'pem' }).toString(),
  });
  return p.id;
}

/**
 * Seeds installs 0…n-1. Tokens look like the real ones (FCM: ~160 characters with a colon; APNs: 64
 * hex) and start with the letter the fake answers by: FCM g(one) / e(rror) / d(elivered), APNs
 * a (gone) / e / 1. Installs are attributed already (organic), so no attribution job picks them up.
 * They were last opened when installed: an open after the last push would restart the failed days.
 */
export async function seedPushInstalls(
  sql: Sql,
  projectId: string,
  classes: PushClass[],
  n: number,
  day: string,
  onChunk?: (done: number) => void,
): Promise<void> {
  const c = columns(classes);
  const fcmLead = c.at((x) => (x.answer === 'gone' ? 'g' : x.answer === 'error' ? 'e' : 'd'));
  const apnsLead = c.at((x) => (x.answer === 'gone' ? 'a' : x.answer === 'error' ? 'e' : '1'));
  const failures = c.at((x) => x.before.failures);
  const lastDay = c.at((x) => x.before.lastDay ?? -9999);
  const uninstalled = c.at((x) => (x.before.uninstalled ? 1 : 0));
  const CHUNK = 100_000;
  for (let lo = 0; lo < n; lo += CHUNK) {
    const hi = Math.min(n, lo + CHUNK) - 1;
    await sql`INSERT INTO installs (project_id, install_instance_id, platform, push_token, push_token_updated_at,
        push_failures, last_push_day, last_push_at, uninstalled_at, attribution_status, attribution_method, created_at,
        last_seen_at)
      SELECT ${projectId}, 'pb' || lpad(g.i::text, 8, '0'),
        CASE WHEN (g.i / 100) % 5 < 3 THEN 'ANDROID' ELSE 'IOS' END,
        CASE WHEN (g.i / 100) % 5 < 3
          THEN c.fcm_lead || md5(g.i::text) || ':APA91b' || md5(g.i::text || 'x') || md5(g.i::text || 'y') || md5(g.i::text || 'z')
          ELSE c.apns_lead || substr(md5(g.i::text) || md5(g.i::text || 'b'), 1, 63) END,
        now() - interval '30 days', c.failures,
        CASE WHEN c.last_day = -9999 THEN NULL ELSE ${day}::date + c.last_day END,
        CASE WHEN c.last_day = -9999 THEN NULL ELSE (${day}::date + c.last_day) + interval '3 hours' END,
        CASE WHEN c.uninstalled = 1 THEN (${day}::date + c.last_day) + interval '3 hours' END,
        'decided', 'organic', now() - interval '30 days', now() - interval '30 days'
      FROM generate_series(${lo}::int, ${hi}::int) AS g(i)
      JOIN unnest(${c.k}::int[], ${fcmLead}::text[], ${apnsLead}::text[], ${failures}::int[], ${lastDay}::int[],
        ${uninstalled}::int[]) AS c(k, fcm_lead, apns_lead, failures, last_day, uninstalled) ON c.k = g.i % 100`;
    onChunk?.(hi + 1);
  }
  // A live installs table has planner statistics; a freshly loaded one does not until autovacuum runs.
  await sql`ANALYZE installs`;
}

export type ClassCheck = { name: string; installs: number; ok: number };

/** Per class: the project's installs and how many are in the class's `after` state on `day`. */
export async function checkPushState(
  sql: Sql,
  projectId: string,
  classes: PushClass[],
  day: string,
): Promise<ClassCheck[]> {
  const c = columns(classes);
  const rows = await sql`SELECT c.name, count(*)::int AS installs, count(*) FILTER (WHERE
        i.push_failures = c.failures
        AND i.last_push_day IS NOT DISTINCT FROM (CASE WHEN c.last_day = -9999 THEN NULL ELSE ${day}::date + c.last_day END)
        AND (i.uninstalled_at IS NOT NULL) = (c.uninstalled = 1))::int AS ok
      FROM installs i
      JOIN unnest(${c.k}::int[], ${c.at((x) => x.name)}::text[], ${c.at((x) => x.after.failures)}::int[],
        ${c.at((x) => x.after.lastDay ?? -9999)}::int[], ${c.at((x) => (x.after.uninstalled ? 1 : 0))}::int[])
        AS c(k, name, failures, last_day, uninstalled) ON c.k = substr(i.install_instance_id, 3)::int % 100
      WHERE i.project_id = ${projectId}
      GROUP BY c.name`;
  return classes.map((cl) => {
    const r = rows.find((x) => x.name === cl.name);
    return { name: cl.name, installs: Number(r?.installs ?? 0), ok: Number(r?.ok ?? 0) };
  });
}

/** After a repetition: its tokens leave the daily pass, so a later repetition's pass sees only its own. */
export async function retirePushTokens(sql: Sql, projectId: string): Promise<void> {
  await sql`UPDATE installs SET push_token = NULL WHERE project_id = ${projectId} AND push_token IS NOT NULL`;
  await sql`DELETE FROM push_credentials WHERE project_id = ${projectId}`;
}
