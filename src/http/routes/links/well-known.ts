// Deep-link verification files on link domains, as the project pasted them (CLI
// `projects set-well-known`). Not configured, or not a link domain: 404 with an empty JSON object,
// which Apple's and Google's verifiers read as "no association".
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { getWellKnownFile, type WellKnownKind } from '../../../domain/links/get-well-known.ts';

async function serve(deps: Deps, host: string, kind: WellKnownKind, reply: FastifyReply) {
  const file = await getWellKnownFile(deps, host, kind);
  reply.type('application/json');
  if (file === undefined) {
    return reply.code(404).header('cache-control', 'no-store').send('{}');
  }
  return reply.code(200).header('cache-control', 'public, max-age=300').send(JSON.stringify(file));
}

export function registerWellKnownRoutes(app: FastifyInstance, deps: Deps): void {
  app.get('/.well-known/apple-app-site-association', { exposeHeadRoute: true }, (req, reply) =>
    serve(deps, req.hostname, 'apple-app-site-association', reply),
  );
  app.get('/.well-known/assetlinks.json', { exposeHeadRoute: true }, (req, reply) =>
    serve(deps, req.hostname, 'assetlinks', reply),
  );
}
