// The sockets the pool's connections use (postgres.js `socket` option). postgres.js 3.4.9 retries a
// connection that the server accepts and closes before answering (a proxy or balancer whose
// Postgres is gone, tcp-proxy.ts's cut) at once and without end: its close handler reconnects while
// the first query still waits, and each attempt restarts connect_timeout, so that query never
// settles and the loop spins a core. Such a close is reported here as an error instead, which
// makes postgres.js fail the waiting query and back off, as it does on ECONNREFUSED.
import net from 'node:net';

/** The parsed options postgres.js hands to the `socket` option (multi-host lists). */
export type SocketTarget = { host: string[]; port: number[]; path?: string | false };

export function socketFactory(): (target: SocketTarget) => net.Socket {
  let next = 0;
  return (target) => {
    const i = next++ % Math.max(1, target.host.length);
    const host = target.host[i] ?? 'localhost';
    const port = target.port[i] ?? 5432;
    const socket = target.path ? net.connect(target.path) : net.connect(port, host);
    // postgres.js reads these for its error messages ("write CONNECT_TIMEOUT host:port").
    Object.assign(socket, { host, port });
    let answered = false;
    socket.once('data', () => {
      answered = true;
    });
    socket.once('end', () => {
      if (!answered) {
        const err = Object.assign(new Error(`write CONNECTION_CLOSED ${host}:${port} (closed before answering)`), {
          code: 'CONNECTION_CLOSED',
        });
        socket.destroy(err);
      }
    });
    return socket;
  };
}
