// PUT /api/v1/spend (POST too): upserts a batch of ad spend rows (campaign family: 10/s per key,
// 401 `Server key missing!` / `Server key invalid!`). Rows are validated one by one: the answer is
// 200 with how many were stored with a change, how many were identical restatements, and each
// rejected row's index and reason.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../../deps.ts';
import { upsertSpend } from '../../../domain/spend/upsert-spend.ts';
import { CRUD_AUTH, projectOf, serviceKey } from '../../auth/service-key.ts';
import { MSG } from '../../messages.ts';
import { parseSpendBody } from '../../parse/v1/spend.ts';
import { ok } from '../../reply.ts';

// 10,000 rows of a few hundred bytes each do not fit the /api/v1 default body limit.
export const SPEND_BODY_LIMIT = 8 * 1024 * 1024;

export function registerSpendRoute(app: FastifyInstance, deps: Deps): void {
  const auth = serviceKey(deps, CRUD_AUTH, 'campaign');
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const rows = parseSpendBody(req.body);
    const r = await upsertSpend(deps, projectOf(req), rows, { source: 'api' });
    return ok(reply, 200, MSG.spendSaved(r.accepted, r.unchanged, r.rejected.length), {
      accepted: r.accepted,
      unchanged: r.unchanged,
      rejected: r.rejected,
    });
  };
  app.put('/spend', { preHandler: auth, bodyLimit: SPEND_BODY_LIMIT }, handler);
  app.post('/spend', { preHandler: auth, bodyLimit: SPEND_BODY_LIMIT }, handler);
}
