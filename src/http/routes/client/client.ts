// /api/client routes: the project token in the body, JSON bodies capped, every answer a JSON
// object whose status equals the HTTP status (real-clients §3).
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { registerAttributionDataRoute } from './attribution-data.ts';
import { configureClientScope } from './client-scope.ts';
import { registerHandleDeeplinkRoute } from './handle-deeplink.ts';
import { registerInitRoute } from './init.ts';

export async function registerClientRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  await app.register(
    async (client) => {
      configureClientScope(client, deps);
      registerInitRoute(client, deps);
      registerAttributionDataRoute(client, deps);
      registerHandleDeeplinkRoute(client, deps);
    },
    { prefix: '/api/client' },
  );
}
