// PUT /api/v1/connections/meta and PUT /api/v1/connections/meta/mappings: a project's Meta
// Conversions API connection and its event mappings, with the server key (campaign family: 10/s,
// `Server key missing!` / `Server key invalid!`). The token is never answered back: a fingerprint.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { mapEvent } from '../../../domain/deliveries/map-event.ts';
import { setMetaConnection } from '../../../domain/deliveries/set-meta-connection.ts';
import { listEventMappings } from '../../../store/postgres/connections.ts';
import { CRUD_AUTH, projectOf, serviceKey } from '../../auth/service-key.ts';
import { MSG } from '../../messages.ts';
import { parseMappings, parseMetaConnection } from '../../parse/v1/connections.ts';
import { ok } from '../../reply.ts';

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
}
