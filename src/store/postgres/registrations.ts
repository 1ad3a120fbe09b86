// Rules 1 and 3's lookup for capture-event / capture-payment: the request's install and the user
// trigger registered, for many requests in one round trip (each ask scoped by its own project).
import type { Sql } from './pool.ts';

export type Registration = {
  /**
   * The request's install, when known: its platform, the user id tied to it, whether it is marked
   * uninstalled, and whether it is counting failed pushes (uninstall tracking's push_failures > 0).
   */
  install: { platform: string; userId: string | null; uninstalled: boolean; pushFailing: boolean } | undefined;
  /**
   * The user asked for (or, when none is given, the one tied to the install) when trigger
   * registered it (an app_users row), with the install it registered through.
   */
  user: { userId: string; installInstanceId: string; platform: string | null } | undefined;
};

export type RegistrationAsk = { projectId: string; installInstanceId: string | null; userId: string | null };

type Row = {
  n: string;
  install_known: boolean;
  install_platform: string | null;
  install_user: string | null;
  install_uninstalled: boolean;
  install_push_failing: boolean;
  reg_user: string | null;
  reg_install: string | null;
  reg_platform: string | null;
};

/** One Registration per ask, in order. */
export async function findRegistrations(sql: Sql, asks: RegistrationAsk[]): Promise<Registration[]> {
  if (asks.length === 0) {
    return [];
  }
  const rows = await sql<Row[]>`
    SELECT a.n, i.install_instance_id IS NOT NULL AS install_known, i.platform AS install_platform,
      i.user_id AS install_user, i.uninstalled_at IS NOT NULL AS install_uninstalled,
      i.push_failures > 0 AS install_push_failing,
      u.user_id AS reg_user, u.install_instance_id AS reg_install, ui.platform AS reg_platform
    FROM unnest(${asks.map((a) => a.projectId)}::uuid[], ${asks.map((a) => a.installInstanceId)}::text[],
        ${asks.map((a) => a.userId)}::text[]) WITH ORDINALITY AS a (project_id, install_id, user_id, n)
    LEFT JOIN installs i ON i.project_id = a.project_id AND i.install_instance_id = a.install_id
    LEFT JOIN app_users u ON u.project_id = a.project_id AND u.user_id = COALESCE(a.user_id, i.user_id)
    LEFT JOIN installs ui ON ui.project_id = a.project_id AND ui.install_instance_id = u.install_instance_id`;
  const byN = new Map(rows.map((r) => [Number(r.n), r]));
  return asks.map((_, k) => {
    const r = byN.get(k + 1);
    return {
      install: r?.install_known
        ? {
            platform: r.install_platform ?? '',
            userId: r.install_user,
            uninstalled: r.install_uninstalled,
            pushFailing: r.install_push_failing,
          }
        : undefined,
      user:
        typeof r?.reg_user === 'string'
          ? { userId: r.reg_user, installInstanceId: r.reg_install ?? '', platform: r.reg_platform }
          : undefined,
    };
  });
}
