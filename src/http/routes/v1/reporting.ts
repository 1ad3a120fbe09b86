// GET /api/v1/reporting/campaigns (spec: reporting endpoint, Limits, Errors 402/429).
// Order: server key (401 `Unauthorized access.`) → 1 request per minute per key (429 with
// Retry-After: 60; the per-IP limit runs before, on every /api/v1 request) → billing (402 with
// payment_link) → query (422 page/limit, 400 others) → the 60 s report cache → the report.
// The cache is keyed by the project and the parsed query, so equivalent queries (aliases, order of
// parameters, case of enums) share an entry and no project ever reads another's. The per-key limit
// is checked first, so the cache serves the project's other keys and retried requests.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { buildCampaignReport } from '../../../domain/reporting/campaign-report.ts';
import type { ReportInput } from '../../../domain/reporting/report-input.ts';
import { DATA_AUTH, projectOf, serviceKey } from '../../auth/service-key.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { parseReportQuery } from '../../parse/v1/reporting.ts';
import { presentReport } from '../../present/report-row.ts';

export const REPORT_CACHE_SECONDS = 60;

export function reportCacheKey(projectId: string, input: ReportInput): string {
  const digest = createHash('sha256').update(JSON.stringify(input)).digest('base64url');
  return `report:${projectId}:${digest}`;
}

export function registerReportingRoute(app: FastifyInstance, deps: Deps): void {
  app.get('/reporting/campaigns', { preHandler: serviceKey(deps, DATA_AUTH, 'reporting') }, async (req, reply) => {
    const project = projectOf(req);
    if (project.billingSuspended) {
      throw new ApiError(402, MSG.billingSuspended, { payment_link: project.paymentLink });
    }
    const input = parseReportQuery(req.query);
    const key = reportCacheKey(project.id, input);
    const cached = await deps.cache.get(key).catch((err: unknown) => {
      req.log.warn({ err: String(err) }, 'report cache unavailable');
      return undefined;
    });
    if (cached !== undefined) {
      return reply.code(200).type('application/json; charset=utf-8').send(cached);
    }
    const report = await buildCampaignReport(deps, project, input);
    const body = JSON.stringify({
      msg: MSG.campaignsFetched,
      status: 200,
      data: presentReport(report, deps.config.publicUrl),
    });
    await deps.cache.set(key, body, REPORT_CACHE_SECONDS).catch((err: unknown) => {
      req.log.warn({ err: String(err) }, 'report cache unavailable');
    });
    return reply.code(200).type('application/json; charset=utf-8').send(body);
  });
}
