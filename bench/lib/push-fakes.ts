// Local fakes of the push services for the `pushes` workload, in a child process started like the
// ceiling server (`node --import tsx`), so answering pushes never takes CPU from the pass under test:
//   FCM HTTP v1 (HTTP/1.1): POST /token → an OAuth2 access token; POST /v1/projects/<p>/messages:send
//   APNs (HTTP/2 cleartext): POST /3/device/<token>
// The answer is written in the token (bench/lib/push-seed.ts makes them): a token starting with 'g'
// (FCM) or 'a' (APNs) is gone (FCM 404 UNREGISTERED, APNs 410), 'e' answers 503 / 500 (an error:
// no state change), anything else is delivered. GET /stats on the FCM port answers the counts since
// the last GET /reset, so the bench can check every expected token was pushed exactly once.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../../src/lib/paths.ts';
import { type Child, startNodeChild, stopChild } from './child.ts';
import { freePort } from './ports.ts';

export type PushFakeStats = Record<'fcm' | 'apns', { delivered: number; gone: number; error: number }>;
type Outcome = 'delivered' | 'gone' | 'error';

const zero = (): PushFakeStats => ({
  fcm: { delivered: 0, gone: 0, error: 0 },
  apns: { delivered: 0, gone: 0, error: 0 },
});

function outcomeOf(token: string, gone: string): Outcome {
  const c = token.charAt(0);
  return c === gone ? 'gone' : c === 'e' ? 'error' : 'delivered';
}

async function serve(fcmPort: number, apnsPort: number, delayMs: number): Promise<void> {
  let stats = zero();
  const later = (f: () => void) => (delayMs > 0 ? setTimeout(f, delayMs) : f());
  const fcm = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => {
      body += d;
    });
    req.on('end', () => {
      if (req.url === '/token') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"access_token":"bench","expires_in":3600}');
      } else if (req.url === '/stats') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(stats));
      } else if (req.url === '/reset') {
        stats = zero();
        res.writeHead(204).end();
      } else {
        const token = String((JSON.parse(body) as { message?: { token?: unknown } }).message?.token ?? '');
        const o = outcomeOf(token, 'g');
        stats.fcm[o] += 1;
        later(() => answerFcm(res, o));
      }
    });
  });
  const answerFcm = (res: http.ServerResponse, o: Outcome) => {
    if (o === 'delivered') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"name":"projects/bench/messages/1"}');
    } else if (o === 'gone') {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end('{"error":{"code":404,"status":"NOT_FOUND","details":[{"errorCode":"UNREGISTERED"}]}}');
    } else {
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"code":503}}');
    }
  };
  fcm.keepAliveTimeout = 60_000;
  const apns = http2.createServer();
  apns.on('stream', (stream, headers) => {
    const token = decodeURIComponent(String(headers[':path'] ?? '').replace('/3/device/', ''));
    stream.resume();
    stream.on('end', () => {
      const o = outcomeOf(token, 'a');
      stats.apns[o] += 1;
      later(() => {
        if (stream.destroyed) {
          return;
        }
        if (o === 'delivered') {
          stream.respond({ ':status': 200, 'apns-id': 'bench' });
          stream.end();
        } else {
          stream.respond({ ':status': o === 'gone' ? 410 : 500, 'content-type': 'application/json' });
          stream.end(o === 'gone' ? '{"reason":"Unregistered","timestamp":0}' : '{"reason":"InternalServerError"}');
        }
      });
    });
  });
  apns.on('sessionError', () => {});
  await new Promise<void>((r) => fcm.listen(fcmPort, '127.0.0.1', r));
  await new Promise<void>((r) => apns.listen(apnsPort, '127.0.0.1', r));
  process.stdout.write(`push fakes listening on ${fcmPort} and ${apnsPort}\n`);
  const stop = () => {
    fcm.close();
    apns.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  process.stdin.on('end', stop);
  process.stdin.resume();
}

export type PushFakes = {
  fcmBase: string;
  apnsBase: string;
  pid: number;
  stats: () => Promise<PushFakeStats>;
  reset: () => Promise<void>;
  stop: () => Promise<void>;
};

/** The bench process's CPU when it is pinned to one (the pinned layout), else undefined. */
function pinnedCpu(): number | undefined {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    const list = /Cpus_allowed_list:\s*(\S+)/.exec(status)?.[1] ?? '';
    return /^\d+$/.test(list) ? Number(list) : undefined;
  } catch {
    return undefined;
  }
}

/** Starts the fakes; pinned beside the service (the CPU the bench process is not on) when the bench is pinned. */
export async function startPushFakes(delayMs = 0): Promise<PushFakes> {
  const [fcmPort, apnsPort] = [await freePort(), await freePort()];
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/tmp',
    FCM_PORT: String(fcmPort),
    APNS_PORT: String(apnsPort),
    DELAY_MS: String(delayMs),
  };
  const own = pinnedCpu();
  const cpu = own === undefined ? undefined : own === 0 ? 1 : 0;
  const child: Child = startNodeChild('push fakes', `${ROOT}/bench/lib/push-fakes.ts`, env, cpu);
  await child.waitForOutput(/push fakes listening/, 30_000);
  const fcmBase = `http://127.0.0.1:${fcmPort}`;
  return {
    fcmBase,
    apnsBase: `http://127.0.0.1:${apnsPort}`,
    pid: child.pid,
    stats: async () => (await (await fetch(`${fcmBase}/stats`)).json()) as PushFakeStats,
    reset: async () => {
      await fetch(`${fcmBase}/reset`);
    },
    stop: async () => {
      await stopChild(child, 5000);
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  serve(Number(process.env.FCM_PORT), Number(process.env.APNS_PORT), Number(process.env.DELAY_MS ?? 0)).catch(
    (err: unknown) => {
      process.stderr.write(`push fakes failed: ${String(err)}\n`);
      process.exit(1);
    },
  );
}
