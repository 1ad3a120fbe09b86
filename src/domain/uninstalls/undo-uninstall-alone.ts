// undoUninstall in a transaction of its own, for a device request that records nothing else: a
// capture-event or capture-payment of a user who never went through trigger (Rule 1 stores no fact)
// still comes from the install, so it proves the app is back (README Uninstall tracking: "A later
// init, event or payment from that install clears the state"); from an install counting failed
// pushes it resets the count. Callers run it only when their lookup read the install as uninstalled
// or counting failed pushes, so the other requests cost no statement.
import type { Deps } from '../../deps.ts';
import { asSql, beginPipelined } from '../../store/postgres/pool.ts';
import type { Project } from '../../store/postgres/projects.ts';
import { undoUninstall } from './undo-uninstall.ts';

export async function undoUninstallAlone(
  deps: Pick<Deps, 'sql' | 'now'>,
  project: Pick<Project, 'id' | 'timezone'>,
  installInstanceId: string,
): Promise<boolean> {
  // Each statement is atomic on its own (the UPDATE clears only a set mark), so it may share a pipeline.
  return beginPipelined(deps.sql, (tx) => undoUninstall(asSql(tx), project, installInstanceId, deps.now()));
}
