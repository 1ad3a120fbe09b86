// For test/e2e/embedded-lock-takeover.test.ts: a process that takes DATA_DIR/postgres.lock
// (embedded-lock.ts) in rounds, each at a wall-clock moment shared with its siblings, and records
// when it held it. Used to race the takeover of a stale lock file (its holder SIGKILLed) between
// processes that start at the same moment.
// argv: <dataDir> <log file> <first round epoch ms> <rounds> <round ms> <hold ms> <writer: 0|1> <dead pid>
import { appendFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { withEmbeddedLock } from '../../src/store/postgres/embedded-lock.ts';

const [dataDir, logFile, firstMs, rounds, roundMs, holdMs, writer, deadPid] = process.argv.slice(2);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function untilMoment(at: number): Promise<void> {
  while (Date.now() < at - 20) {
    await sleep(Math.max(1, at - 20 - Date.now()));
  }
  while (Date.now() < at) {
    // spin the last few ms so every process leaves at the same moment
  }
}

for (let r = 0; r < Number(rounds); r++) {
  const at = Number(firstMs) + r * Number(roundMs);
  if (writer === '1') {
    // The lock file a SIGKILLed holder left behind: a pid that no longer runs.
    await untilMoment(at - 300);
    writeFileSync(path.join(dataDir as string, 'postgres.lock'), `${deadPid}\n`);
  }
  await untilMoment(at);
  await withEmbeddedLock(dataDir as string, 30_000, async () => {
    appendFileSync(logFile as string, `${r} enter ${process.pid} ${performance.timeOrigin + performance.now()}\n`);
    await sleep(Number(holdMs));
    appendFileSync(logFile as string, `${r} exit ${process.pid} ${performance.timeOrigin + performance.now()}\n`);
  });
}
process.stdout.write('lock-child: done\n');
