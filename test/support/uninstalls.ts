// Shared by the uninstall tests (test/uninstalls): an install's uninstall state in Postgres, the app
// reporting its push token, and the daily pass run at a simulated time.
import type { Deps } from '../../src/deps.ts';
import type { PushSender } from '../../src/domain/uninstalls/push-sender.ts';
import { runUninstallPass } from '../../src/domain/uninstalls/run-uninstall-pass.ts';
import { post } from './client.ts';
import type { Harness, TestProject } from './harness.ts';

/** push_failures and whether uninstalled_at is set, for one install. */
export async function uninstallState(deps: Pick<Deps, 'sql'>, p: TestProject, iid: string) {
  const [r] = await deps.sql`SELECT push_failures, uninstalled_at IS NOT NULL AS uninstalled FROM installs
    WHERE project_id = ${p.project.id} AND install_instance_id = ${iid}`;
  return r;
}

/** update-push-token for the install: the app reporting its FCM or APNs token. */
export function savePushToken(h: Harness, p: TestProject, iid: string, pushToken: string, platform = 'ANDROID') {
  return post(h, 'update-push-token', { token: p.token, platform, install_instance_id: iid, push_token: pushToken });
}

/**
 * The uninstall pass as it runs at `atMs`, with `senders` for this project (none for the others).
 * deps.now stays at `atMs`: the caller puts it back.
 */
export function passAt(h: Harness, p: TestProject, atMs: number, senders: Partial<Record<'FCM' | 'APNS', PushSender>>) {
  h.deps.now = () => atMs;
  return runUninstallPass(h.deps, async (id) => (id === p.project.id ? senders : {}));
}
