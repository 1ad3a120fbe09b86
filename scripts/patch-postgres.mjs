#!/usr/bin/env node
// Repairs postgres.js 3.4.9's write scheduler in node_modules (run by `postinstall`; safe to run
// again). The driver batches small writes behind one setImmediate and arms it only while its
// handle variable is null; teardown (the socket's close, terminate) cancels that immediate but
// leaves the variable set and keeps the unsent bytes. The next connection attempt of that pool slot
// then never sends its startup message: Postgres waits, the query behind it fails with
// CONNECT_TIMEOUT after connect_timeout, again on every retry, until the stale bytes pass 1 KB and
// go out ahead of a startup message (Postgres: "invalid length of startup packet"). Seen as late
// 503s after a Postgres restart (fault suite F2); test/store/postgres-teardown.test.ts reproduces it.
// The repair: teardown forgets the cancelled immediate and the unsent bytes, and a flush that runs
// after the socket is gone (a query on a reserved connection whose backend died) fails the queries
// waiting on it with CONNECTION_CLOSED, where 3.4.9 throws from the immediate and so ends the
// process ("Cannot read properties of null (reading 'write')"). And a close fails every query
// still queued on the connection: 3.4.9 skips that after a socket error, so a query sent between
// the socket's 'error' and 'close' stayed queued, was taken for in flight on the next connection
// and never settled (a request hung; postgres-teardown.test.ts shows it). Upstream:
// porsager/postgres, unreleased as of 3.4.9.
//
// Usage: node scripts/patch-postgres.mjs [--check]   (--check: exit 1 when a build is unrepaired)
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

// src/store/postgres/driver-repair.ts looks for this text (DRIVER_REPAIR_MARK) at startup.
const MARK = '/* attribution-service: write scheduler repair */';

const TEARDOWN = 'clearImmediate(nextWriteTimer)\n';
const TEARDOWN_FIXED = `clearImmediate(nextWriteTimer)\n    nextWriteTimer = chunk = null ${MARK}\n`;
const CLOSED = '  async function closed(hadError) {\n';
const CLOSED_FIXED = `  async function closed(hadError) {\n    while (sent.length) queryError(sent.shift(), Errors.connection('CONNECTION_CLOSED', options, socket)) ${MARK}\n`;
const FLUSH = '  function nextWrite(fn) {\n';
const FLUSH_FIXED = `  function nextWrite(fn) {\n    if (!socket) return (chunk = nextWriteTimer = null, error(Errors.connection('CONNECTION_CLOSED', options)), false) ${MARK}\n`;

/** The connection.js of each build the package ships (ESM, CommonJS, Workers). */
function builds(root) {
  return ['src', 'cjs/src', 'cf/src'].map((d) => path.join(root, d, 'connection.js')).filter((f) => existsSync(f));
}

/** Returns the repaired text, or undefined when the file does not have the expected shape. */
function repair(text) {
  if (text.includes(MARK)) {
    return text;
  }
  const teardowns = text.split(`    ${TEARDOWN}`).length - 1;
  if (teardowns !== 2 || !text.includes(FLUSH) || !text.includes(CLOSED)) {
    return undefined;
  }
  return text
    .replaceAll(`    ${TEARDOWN}`, `    ${TEARDOWN_FIXED}`)
    .replace(FLUSH, FLUSH_FIXED)
    .replace(CLOSED, CLOSED_FIXED);
}

/** postgres.js's directory, from its CommonJS entry (cjs/src/index.js; its exports map hides package.json). */
function packageRoot() {
  return path.resolve(path.dirname(createRequire(import.meta.url).resolve('postgres')), '..', '..');
}

function main() {
  const check = process.argv.includes('--check');
  const root = packageRoot();
  const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  let missing = 0;
  for (const file of builds(root)) {
    const text = readFileSync(file, 'utf8');
    const rel = path.relative(process.cwd(), file);
    if (text.includes(MARK)) {
      console.log(`postgres.js ${version}: ${rel} already repaired`);
      continue;
    }
    const fixed = repair(text);
    if (fixed === undefined) {
      // A release that changed this code (perhaps fixed upstream): leave it, say so.
      console.warn(`postgres.js ${version}: ${rel} does not have the expected write scheduler; left as is`);
      continue;
    }
    if (check) {
      console.error(`postgres.js ${version}: ${rel} is not repaired (run: node scripts/patch-postgres.mjs)`);
      missing++;
      continue;
    }
    writeFileSync(file, fixed);
    console.log(`postgres.js ${version}: repaired ${rel}`);
  }
  process.exitCode = missing > 0 ? 1 : 0;
}

main();
