// /healthz (the process answers) and /readyz (each store answers).
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { checkClickHouse } from '../../../store/clickhouse/client.ts';

type Check = 'ok' | 'down' | 'not configured';

async function probe(fn: () => Promise<unknown>, timeoutMs = 2000): Promise<Check> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      fn(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
      }),
    ]);
    return 'ok';
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}

export function registerHealthRoutes(app: FastifyInstance, deps: Deps): void {
  // HEAD too (load balancers, uptime checks); the other non-link GET routes have none (app.ts).
  app.get('/healthz', { exposeHeadRoute: true }, async () => ({ status: 'ok' }));
  app.get('/readyz', { exposeHeadRoute: true }, async (_req, reply) => {
    const checks: Record<string, Check> = {
      postgres: await probe(() => deps.sql`SELECT 1`),
      // Authenticated, in the configured database: a server's /ping said ok while queries were refused.
      clickhouse: await probe(() => checkClickHouse(deps.ch, deps.config.clickhouse !== undefined)),
      redis: deps.redis ? await probe(() => (deps.redis as NonNullable<Deps['redis']>).ping()) : 'not configured',
    };
    const ready = Object.values(checks).every((c) => c !== 'down');
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', checks });
  });
}
