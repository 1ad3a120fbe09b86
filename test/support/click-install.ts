// The real write path of a tapped campaign link, with the clock pinned (deps.now) so facts land on
// exact days: an Android phone on a fresh IP opens `/<display id>`, then its install inits with the
// Play referrer the redirect carried. For the reporting tests that place installs on given days.
import { randomUUID } from 'node:crypto';
import { attributeInstall } from '../../src/domain/attribution/attribute-install.ts';
import { ANDROID_UA, post } from './client.ts';
import type { Harness, TestProject } from './harness.ts';
import { at } from './users.ts';

/** Runs `fn` with deps.now() pinned to the instant `iso`. */
export const atIso = <T>(h: Harness, iso: string, fn: () => Promise<T>): Promise<T> => at(h, Date.parse(iso), fn);

/** Throws with the answer's body unless it has `status` (an arrange step, not the assertion). */
export function expectStatus(res: { statusCode: number; body: string }, status: number, what: string): void {
  if (res.statusCode !== status) {
    throw new Error(`${what} answered ${res.statusCode}: ${res.body}`);
  }
}

/** A click on `/<displayId>?<query>` at clickIso, then an Android init with its Play referrer at initIso. */
export async function clickThenInit(
  h: Harness,
  p: TestProject,
  link: { displayId: string; query?: string },
  clickIso: string,
  initIso: string,
): Promise<{ iid: string; ip: string }> {
  const ip = `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250) + 1}`;
  const click = await atIso(h, clickIso, () =>
    h.app.inject({
      method: 'GET',
      url: `/${link.displayId}${link.query ? `?${link.query}` : ''}`,
      headers: { host: 'attr.test', 'user-agent': ANDROID_UA },
      remoteAddress: ip,
    }),
  );
  expectStatus(click, 302, 'link');
  const referrer = new URL(String(click.headers.location)).searchParams.get('referrer') ?? '';
  const iid = randomUUID();
  const body = {
    token: p.token,
    platform: 'ANDROID',
    install_instance_id: iid,
    device_data: { install_ref: referrer },
  };
  expectStatus(await atIso(h, initIso, () => post(h, 'init', body, { remoteAddress: ip })), 202, 'init');
  return { iid, ip };
}

/** clickThenInit, with the install created and attributed at installIso. */
export async function installFromClick(
  h: Harness,
  p: TestProject,
  link: { displayId: string; query?: string },
  clickIso: string,
  installIso: string,
): Promise<{ iid: string; ip: string }> {
  const made = await clickThenInit(h, p, link, clickIso, installIso);
  // installs.created_at takes Postgres's now(); move it to the install time (report-writer.ts does the same).
  await h.deps.sql`UPDATE installs SET created_at = ${new Date(installIso)}
    WHERE project_id = ${p.project.id} AND install_instance_id = ${made.iid}`;
  await atIso(h, installIso, () => attributeInstall(h.deps, { projectId: p.project.id, installInstanceId: made.iid }));
  return made;
}
