// /api/client routes: the project token in the body, JSON bodies capped, every answer a JSON
// object whose status equals the HTTP status (real-clients §3).
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { registerAttributionDataRoute } from './attribution-data.ts';
import { registerCaptureEventRoute } from './capture-event.ts';
import { registerCapturePaymentRoute } from './capture-payment.ts';
import { configureClientScope } from './client-scope.ts';
import { registerCustomerUserIdRoute } from './customer-user-id.ts';
import { registerHandleDeeplinkRoute } from './handle-deeplink.ts';
import { registerInitRoute } from './init.ts';
import { registerIntegrationsRoute } from './integrations.ts';
import { registerRemoveCapturedPaymentRoute } from './remove-captured-payment.ts';
import { registerSetUserDataRoute } from './set-user-data.ts';
import { registerTriggerRoute } from './trigger.ts';
import { registerUpdatePushTokenRoutes } from './update-push-token.ts';

export async function registerClientRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  await app.register(
    async (client) => {
      configureClientScope(client, deps);
      registerInitRoute(client, deps);
      registerAttributionDataRoute(client, deps);
      registerHandleDeeplinkRoute(client, deps);
      registerTriggerRoute(client, deps);
      registerSetUserDataRoute(client, deps);
      registerCustomerUserIdRoute(client, deps);
      registerCaptureEventRoute(client, deps);
      registerCapturePaymentRoute(client, deps);
      registerRemoveCapturedPaymentRoute(client, deps);
      registerUpdatePushTokenRoutes(client, deps);
      registerIntegrationsRoute(client, deps);
    },
    { prefix: '/api/client' },
  );
}
