// Attribution decisions end to end: clicks and inits at controlled instants (deps.now pinned), the
// operator CLI for per-project settings, and readers of the decision record.
import { randomUUID } from 'node:crypto';
import { runCli } from '../../src/cli/main.ts';
import { attribute, flushFacts, post, type Res } from './client.ts';
import type { Harness, TestProject } from './harness.ts';

export const HOUR = 3_600_000;

/** A round instant a day before the real clock (lookups clip their end to the real now). */
export function baseInstant(): number {
  return Math.floor((Date.now() - 24 * HOUR) / 1000) * 1000;
}

/** Runs `fn` with deps.now pinned to `at`. */
export async function at<T>(h: Harness, ms: number, fn: () => Promise<T>): Promise<T> {
  const real = h.deps.now;
  h.deps.now = () => ms;
  try {
    return await fn();
  } finally {
    h.deps.now = real;
  }
}

/** Opens a campaign link at instant `ms` from `ip` with `ua`; answers the click id (from the outbox). */
export async function clickAt(
  h: Harness,
  p: TestProject,
  displayId: string,
  o: { ms: number; ip: string; ua: string; query?: string },
): Promise<{ res: Res; clickId: string; referrer: string }> {
  const before = await clickIds(h, p);
  const res = (await at(h, o.ms, () =>
    h.app.inject({
      method: 'GET',
      url: `/${displayId}${o.query ? `?${o.query}` : ''}`,
      headers: { host: 'attr.test', 'user-agent': o.ua },
      remoteAddress: o.ip,
    }),
  )) as Res;
  const after = await clickIds(h, p);
  const fresh = after.filter((id) => !before.includes(id));
  const location = res.headers.location ? new URL(String(res.headers.location)) : undefined;
  const referrer = location?.searchParams.get('referrer') ?? '';
  return { res, clickId: fresh[0] ?? '', referrer };
}

async function clickIds(h: Harness, p: TestProject): Promise<string[]> {
  const rows = await h.deps.sql<{ id: string }[]>`
    SELECT fact_id AS id FROM fact_outbox WHERE fact_table = 'clicks' AND project_id = ${p.project.id}`;
  return rows.map((r) => r.id);
}

/** init at instant `ms` from `ip`; answers the install id. */
export async function initAt(
  h: Harness,
  p: TestProject,
  o: { ms: number; ip: string; platform?: string; deviceData?: Record<string, unknown>; link?: string },
): Promise<string> {
  const iid = randomUUID();
  const res = await at(h, o.ms, () =>
    post(
      h,
      'init',
      {
        token: p.token,
        platform: o.platform ?? 'ANDROID',
        install_instance_id: iid,
        device_data: o.deviceData ?? {},
        ...(o.link ? { link: o.link } : {}),
      },
      { remoteAddress: o.ip },
    ),
  );
  if (res.statusCode !== 202) {
    throw new Error(`init answered ${res.statusCode}: ${res.body}`);
  }
  return iid;
}

/** Runs the attribution job (its clock pinned to `ms` when given). */
export function decide(h: Harness, p: TestProject, iid: string, ms?: number) {
  return ms === undefined ? attribute(h, p, iid) : at(h, ms, () => attribute(h, p, iid));
}

export { flushFacts };

/** The operator CLI against this process's database. */
export async function cli(env: Record<string, string | undefined>, argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, env, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** get-attribution-result by advertising id. */
export async function resultByDevice(h: Harness, p: TestProject, deviceId: string): Promise<Res> {
  return (await h.app.inject({
    method: 'GET',
    url: `/api/v1/get-attribution-result?device_identifier=${encodeURIComponent(deviceId)}`,
    headers: p.headers,
  })) as Res;
}

export const SAMSUNG_UA =
  'Mozilla/5.0 (Linux; Android 14; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36';
export const SAMSUNG_DEVICE = { system_version: '14', device_name: 'samsung SM-S911B' };
