// HTTP/1.1 over a raw loopback socket, for what app.inject cannot show: headers (a duplicated one,
// say) reaching Node's parser exactly as written.
import net from 'node:net';
import type { FastifyInstance } from 'fastify';

/** Listens on 127.0.0.1 at a free port and returns it. */
export async function listenOnLoopback(app: FastifyInstance): Promise<number> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  return typeof addr === 'object' && addr ? addr.port : 0;
}

/** The request text: headers in the order given (repeats kept), a JSON body when there is one. */
export function rawRequest(method: string, url: string, headers: [string, string][], body = ''): string {
  return [
    `${method} ${url} HTTP/1.1`,
    'Host: localhost',
    ...headers.map(([k, v]) => `${k}: ${v}`),
    ...(body ? ['content-type: application/json', `content-length: ${Buffer.byteLength(body)}`] : []),
    'connection: close',
    '',
    body,
  ].join('\r\n');
}

/** One exchange (the request asks the server to close): the status and the body. */
export function rawExchange(port: number, request: string): Promise<{ statusCode: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      data += chunk;
    });
    socket.on('error', reject);
    socket.on('end', () => {
      const [head = '', body = ''] = data.split('\r\n\r\n');
      resolve({ statusCode: Number(head.split(' ')[1]), body });
    });
  });
}
