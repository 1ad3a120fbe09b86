// Free TCP ports on loopback for the processes the bench starts (service, embedded Postgres,
// ceiling server). The port is released before use, so another program could take it in between;
// a clash shows up as a start failure, never as a wrong measurement.
import net from 'node:net';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no free port'))));
    });
  });
}
