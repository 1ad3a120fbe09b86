// The embedded engine (chdb, clickhouse-local underneath) reads the process's stdin as data for an
// INSERT whenever a line is waiting there: the insert then fails ("Processing async inserts with
// both inlined and external data (from stdin or infile) is not supported") and the line is gone.
// Measured: a line every 100 ms on a piped stdin failed 1,112 of 1,245 inserts. The fact writer
// keeps its rows and retries, but facts stall while anything is typed or piped into the service.
// The service never reads stdin, so it points fd 0 at /dev/null before the engine starts.
import { closeSync, openSync } from 'node:fs';

/** Replaces fd 0 with /dev/null (POSIX: open returns the lowest free descriptor, 0 once closed). */
export function detachStdinFromEngine(): void {
  if (process.platform === 'win32') {
    return;
  }
  try {
    closeSync(0);
  } catch {
    // fd 0 was not open: the engine has nothing to read
  }
  const fd = openSync('/dev/null', 'r');
  if (fd !== 0) {
    closeSync(fd); // 0 was taken again meanwhile; leave it
  }
}
