// The success envelope: {msg, status, data} with status equal to the HTTP status.
import type { FastifyReply } from 'fastify';

export function ok(reply: FastifyReply, status: number, msg: string, data: unknown): FastifyReply {
  return reply.code(status).send({ msg, status, data });
}
