// Workload `pushes`: uninstall tracking's silent pushes per second through the real FCM HTTP v1
// sender (OAuth2 JWT exchange, one messages:send per token) to a local fake FCM server, in batches
// of 500 with 8 batches in flight as the daily pass sends them. Judged against the bare POST
// ceiling (a push is one POST); the target is the 1 M tokens within an hour on one worker
// (≥ 278 pushes/s). Recording results in Postgres is not included (see the report's notes).
import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFcmSender } from '../../src/domain/uninstalls/fcm-sender.ts';
import type { PushTarget } from '../../src/domain/uninstalls/push-sender.ts';
import { round } from '../lib/stats.ts';
import type { Workload } from '../lib/workload.ts';

const BATCH = 500;
const IN_FLIGHT = 8;

async function fakeFcm(): Promise<{ base: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/token') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"access_token":"bench","expires_in":3600}');
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"name":"projects/bench/messages/1"}');
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, close: () => new Promise<void>((r) => server.close(() => r())) };
}

export const workload: Workload = {
  name: 'pushes',
  summary:
    'uninstall-tracking silent pushes/s via the FCM HTTP v1 sender to a local fake (batches of 500, 8 in flight)',
  order: 40,
  metrics: [
    {
      id: 'pushes_per_s',
      label: 'pushes/s (fake FCM)',
      unit: 'push/s',
      better: 'higher',
      ceiling: 'bare POST',
      target: { on: 'value', atLeast: 278, text: '≥ 278/s (1 M within an hour)' },
    },
  ],
  async run(h) {
    const total = h.quick ? 5_000 : 50_000;
    const ceiling = await h.ceiling('post');
    const fake = await fakeFcm();
    try {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const sender = createFcmSender(
        {
          project_id: 'bench',
          client_email: 'bench@bench.iam.gserviceaccount.com',
          private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        },
        { fcmBaseUrl: fake.base, fcmTokenUrl: `${fake.base}/token` },
      );
      const batches: PushTarget[][] = [];
      for (let i = 0; i < total; i += BATCH) {
        batches.push(
          Array.from({ length: Math.min(BATCH, total - i) }, (_, k) => ({
            installInstanceId: `i${i + k}`,
            token: `bench-token-${i + k}`,
          })),
        );
      }
      let next = 0;
      let delivered = 0;
      const t0 = performance.now();
      const worker = async () => {
        while (next < batches.length) {
          const b = batches[next++] ?? [];
          // `delivered += await …` would read `delivered` before the await and lose other workers' counts.
          const ok = (await sender.send(b)).filter((r) => r === 'delivered').length;
          delivered += ok;
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
      const seconds = (performance.now() - t0) / 1000;
      const perS = delivered / seconds;
      h.progress(`pushes: ${delivered}/${total} delivered in ${round(seconds, 1)} s (${round(perS, 0)}/s)`);
      return {
        measures: { pushes_per_s: { value: round(perS, 0), ceiling: ceiling.okPerS } },
        details: { total, delivered, seconds: round(seconds, 2), batch: BATCH, inFlight: IN_FLIGHT },
      };
    } finally {
      await fake.close();
    }
  },
};
