// A loopback TCP proxy a test can cut: cut() drops every open connection and closes new ones at
// once (the server still listens, as a host whose service died), restore() lets them through again.
// Used to take a real service away from one client without touching the run's shared servers.
import { createConnection, createServer, type Socket } from 'node:net';

export type TcpProxy = { port: number; cut(): void; restore(): void; close(): Promise<void> };

/** listenPort: a fixed port (one a client was already refused on), else any free one. */
export async function startTcpProxy(targetHost: string, targetPort: number, listenPort = 0): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let isCut = false;
  const server = createServer((client) => {
    if (isCut) {
      client.destroy();
      return;
    }
    const upstream = createConnection(targetPort, targetHost);
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(listenPort, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') {
    throw new Error('proxy has no port');
  }
  const dropAll = () => {
    for (const s of open) {
      s.destroy();
    }
  };
  return {
    port: address.port,
    cut() {
      isCut = true;
      dropAll();
    },
    restore() {
      isCut = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        dropAll();
        server.close(() => resolve());
      }),
  };
}
