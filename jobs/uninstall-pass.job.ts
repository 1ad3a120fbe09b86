// uninstall-pass queue: runs the day's pass with the real FCM / APNs senders. Rules live in
// domain/uninstalls; the payload's day only names the job (the pass works on the current day).
import type { Deps } from '../src/deps.ts';
import { projectSenders } from '../src/domain/uninstalls/project-senders.ts';
import { runUninstallPass } from '../src/domain/uninstalls/run-uninstall-pass.ts';

export const uninstallPassJob = (deps: Deps) => async (_payload: unknown) => {
  await runUninstallPass(deps, projectSenders(deps));
};
