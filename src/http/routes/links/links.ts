// Everything served on link domains: campaign links and the deep-link verification files.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { registerRedirectRoutes } from './redirect.ts';
import { registerWellKnownRoutes } from './well-known.ts';

export function registerLinkRoutes(app: FastifyInstance, deps: Deps): void {
  registerWellKnownRoutes(app, deps);
  registerRedirectRoutes(app, deps);
}
