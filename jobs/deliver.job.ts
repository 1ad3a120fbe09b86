// Delivery job: sends one (project, destination) batch. A batch that may succeed later throws, so
// the queue retries it with backoff; the rows themselves record attempts and go dead past the limit.
import type { Deps } from '../src/deps.ts';
import { deliverBatch } from '../src/domain/deliveries/deliver-batch.ts';
import type { DeliverPayload } from '../src/queue/payloads.ts';

export class DeliveryRetryError extends Error {}

export const deliverJob = (deps: Deps) => async (payload: unknown) => {
  const job = payload as DeliverPayload;
  const out = await deliverBatch(deps, job);
  if (out.retry) {
    throw new DeliveryRetryError(`delivery to ${job.destination} failed; retrying with backoff`);
  }
};
