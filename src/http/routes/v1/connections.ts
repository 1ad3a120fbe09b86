// PUT /api/v1/connections/meta and PUT /api/v1/connections/meta/mappings: a project's Meta
// Conversions API connection and its event mappings, with the server key (campaign family: 10/s,
// `Server key missing!` / `Server key invalid!`). The token is never answered back: a fingerprint.
// PUT, GET and DELETE /api/v1/connections/revenuecat (same family): the RevenueCat webhook's
// authorization token. PUT generates it (or a new one in its place) and is the only answer that
// carries it; GET says whether one is set (with its first characters); DELETE removes it.
import type { FastifyInstance, preHandlerAsyncHookHandler } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { mapEvent } from '../../../domain/deliveries/map-event.ts';
import { setMetaConnection } from '../../../domain/deliveries/set-meta-connection.ts';
import { issueRevenueCatToken } from '../../../domain/revenuecat/issue-token.ts';
import { listEventMappings } from '../../../store/postgres/connections.ts';
import {
  deleteRevenueCatConnection,
  findRevenueCatConnection,
  type RevenueCatConnection,
} from '../../../store/postgres/revenuecat-connections.ts';
import { CRUD_AUTH, projectOf, serviceKey } from '../../auth/service-key.ts';
import { MSG } from '../../messages.ts';
import { parseMappings, parseMetaConnection } from '../../parse/v1/connections.ts';
import { ok } from '../../reply.ts';

const webhookUrl = (deps: Deps): string => `${deps.config.publicUrl}/webhook/revenuecat`;

const presentRevenueCat = (deps: Deps, c: RevenueCatConnection) => ({
  webhook_url: webhookUrl(deps),
  token_prefix: c.tokenPrefix,
  created_at: c.createdAt.toISOString(),
  rotated_at: c.rotatedAt?.toISOString() ?? null,
});

function registerRevenueCatRoutes(app: FastifyInstance, deps: Deps, auth: preHandlerAsyncHookHandler): void {
  app.put('/connections/revenuecat', { preHandler: auth }, async (req, reply) => {
    const c = await issueRevenueCatToken(deps, projectOf(req).id);
    return ok(reply, 200, c.rotated ? MSG.revenueCatTokenRotated : MSG.revenueCatTokenCreated, {
      connected: true,
      authorization_token: c.token,
      ...presentRevenueCat(deps, c),
    });
  });
  app.get('/connections/revenuecat', { preHandler: auth }, async (req, reply) => {
    const c = await findRevenueCatConnection(deps.sql, projectOf(req).id);
    return c
      ? ok(reply, 200, MSG.revenueCatConnected, { connected: true, ...presentRevenueCat(deps, c) })
      : ok(reply, 200, MSG.revenueCatNotConnected, { connected: false, webhook_url: webhookUrl(deps) });
  });
  app.delete('/connections/revenuecat', { preHandler: auth }, async (req, reply) => {
    const removed = await deleteRevenueCatConnection(deps.sql, projectOf(req).id);
    return ok(reply, 200, removed ? MSG.revenueCatTokenRemoved : MSG.revenueCatNothingRemoved, { removed });
  });
}

export function registerConnectionRoutes(app: FastifyInstance, deps: Deps): void {
  const auth = serviceKey(deps, CRUD_AUTH, 'campaign');
  app.put('/connections/meta', { preHandler: auth }, async (req, reply) => {
    const input = parseMetaConnection(req.body);
    const c = await setMetaConnection(deps, projectOf(req).id, input);
    return ok(reply, 200, MSG.metaConnectionSaved, {
      dataset_id: c.datasetId,
      graph_version: c.graphVersion,
      active: c.active,
      activated_at: c.activatedAt?.toISOString() ?? null,
      token_fingerprint: c.tokenFingerprint,
    });
  });
  app.put('/connections/meta/mappings', { preHandler: auth }, async (req, reply) => {
    const mappings = parseMappings(req.body);
    const projectId = projectOf(req).id;
    for (const m of mappings) {
      await mapEvent(deps, projectId, m);
    }
    const all = await listEventMappings(deps.sql, projectId);
    return ok(reply, 200, MSG.mappingsSaved(mappings.length), {
      mappings: all.map((m) => ({ kind: m.kind, name: m.name, to: m.standardEvent })),
    });
  });
  registerRevenueCatRoutes(app, deps, auth);
}
