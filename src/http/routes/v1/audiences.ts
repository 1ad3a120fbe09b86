// GET /api/v1/audiences/export: an audience segment as a CSV file to upload to Meta Custom
// Audiences or Google Customer Match (not in the spec; product notes "Remarketing"). Auth and limit
// as reporting, the other read of a whole window: `Unauthorized access.` for a missing or wrong key,
// and 1 request per minute per key (RATE_LIMIT_REPORTING_PER_MINUTE, Retry-After: 60) on a budget
// of its own, so an export never costs the key its report. Order: key (401) → query (400) →
// campaign (404) → limit (429) → the file: the budget is taken only by a valid request, so a
// mistyped query does not make its correction wait a minute. The file is streamed as it is read
// (200 text/csv, an attachment), with the counts as HTTP trailers once it ends: x-audience-rows and
// x-audience-skipped (segment users with no identifier of the format). A failure after the first
// bytes cuts the response off (no last chunk), so a client never takes a partial file for a whole one.
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { exportAudience } from '../../../domain/audiences/export-audience.ts';
import { DATA_AUTH, projectOf, serviceKey } from '../../auth/service-key.ts';
import { parseAudienceQuery } from '../../parse/v1/audiences.ts';
import { checkKeyRateLimit } from '../../rate-limit.ts';

export const AUDIENCE_EXPORT_ROUTE = '/audiences/export';

/** The key's export budget (serviceKey set the key id; 'in-route' left the budget to the route). */
function takeExportBudget(deps: Deps, req: FastifyRequest): Promise<void> {
  if (req.serverKeyId === null) {
    throw new Error('route is missing the serviceKey preHandler');
  }
  return checkKeyRateLimit(deps, 'export', projectOf(req).id, req.serverKeyId);
}

export function registerAudienceRoutes(app: FastifyInstance, deps: Deps): void {
  app.get(AUDIENCE_EXPORT_ROUTE, { preHandler: serviceKey(deps, DATA_AUTH, 'in-route') }, async (req, reply) => {
    const project = projectOf(req);
    const input = parseAudienceQuery(req.query);
    const out = await exportAudience(deps, project, input, { admit: () => takeExportBudget(deps, req) });
    const file = `audience-${input.format}-${input.from}-${input.to}.csv`;
    return reply
      .code(200)
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${file}"`)
      .header('cache-control', 'no-store')
      .trailer('x-audience-rows', async () => String(out.tally.rows))
      .trailer('x-audience-skipped', async () => String(out.tally.skipped))
      .send(Readable.from(out.chunks, { objectMode: false }));
  });
}
