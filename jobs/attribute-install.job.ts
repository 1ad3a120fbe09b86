// attribution queue: unpack the payload, call the domain. Rules live in domain/attribution; jobs
// running at the same time are decided in batches (attributionBatcher).
import type { Deps } from '../src/deps.ts';
import { attributionBatcher } from '../src/domain/attribution/attribute-install.ts';
import type { AttributeInstallPayload } from '../src/queue/payloads.ts';

export const attributeInstallJob = (deps: Deps) => {
  const attribute = attributionBatcher(deps);
  return async (payload: unknown) => {
    await attribute(payload as AttributeInstallPayload);
  };
};
