// postgres.js reads the array types on every new connection in a promise nothing awaits; a
// connection dropped during that read became an unhandled rejection that ended `npm start` (CI:
// Ctrl-C reached the embedded Postgres first). A proxy resets the first connection right after
// its startup, when the client sends that read; a child process with and without main.ts's guard.
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { processDatabaseUrl } from '../support/harness.ts';
import { cleanEnv, startNode } from '../support/processes.ts';

const CHILD = ['--import', 'tsx', 'test/support/type-fetch-child.ts'];

/** Forwards to Postgres; the first connection is reset when the client writes after ReadyForQuery. */
function resettingProxy(target: URL): net.Server {
  const port = Number(target.port || 5432);
  const host = target.hostname;
  let connections = 0;
  return net.createServer((client) => {
    const reset = connections++ === 0;
    const upstream = net.connect(port, host);
    let ready = false;
    let pending = Buffer.alloc(0);
    upstream.on('data', (chunk: Buffer) => {
      client.write(chunk);
      // Server messages: a type byte, then an int32 length that counts itself.
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 5 && pending.length >= 1 + pending.readInt32BE(1)) {
        ready ||= pending[0] === 0x5a; // 'Z', ReadyForQuery
        pending = pending.subarray(1 + pending.readInt32BE(1));
      }
    });
    client.on('data', (chunk: Buffer) => {
      if (reset && ready) {
        client.resetAndDestroy();
        upstream.destroy();
        return;
      }
      upstream.write(chunk);
    });
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
}

describe('a connection lost while postgres.js reads the array types', () => {
  const proxies: net.Server[] = [];
  afterAll(() => {
    for (const p of proxies) {
      p.close();
    }
  });

  /** A fresh proxy (its first connection is the one reset) and the URL through it. */
  async function proxyUrl(): Promise<string> {
    const target = new URL(await processDatabaseUrl());
    const proxy = resettingProxy(new URL(target));
    proxies.push(proxy);
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    target.hostname = '127.0.0.1';
    target.port = String((proxy.address() as net.AddressInfo).port);
    return target.toString();
  }

  async function runChild(mode: 'guard' | 'bare') {
    const child = startNode([...CHILD, await proxyUrl(), mode], cleanEnv({}));
    const exit = await child.waitExit(30_000);
    return { exit, stdout: child.stdout(), stderr: child.stderr() };
  }

  it('when nothing guards it, then the process dies of the unhandled rejection (the failure this guards)', async () => {
    const r = await runChild('bare');

    expect(r.exit.code, r.stderr).toBe(1);
    expect(r.stderr).toContain('ECONNRESET');
    expect(r.stdout).toBe('');
  });

  it("when main.ts's guard is installed, then the waiting query fails alone, a warning is logged, and the next query reconnects", async () => {
    const r = await runChild('guard');

    expect(r.exit, r.stderr).toEqual({ code: 0, signal: null });
    expect(JSON.parse(r.stdout.trim().split('\n').at(-1) as string)).toEqual({
      first: 'failed ECONNRESET',
      second: 'ok',
    });
    expect(r.stdout).toContain('postgres connection lost while it opened');
  });
});
