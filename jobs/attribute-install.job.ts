// attribution queue: unpack the payload, call the domain. Rules live in domain/attribution.
import type { Deps } from '../src/deps.ts';
import { attributeInstall } from '../src/domain/attribution/attribute-install.ts';
import type { AttributeInstallPayload } from '../src/queue/payloads.ts';

export const attributeInstallJob = (deps: Deps) => async (payload: unknown) => {
  await attributeInstall(deps, payload as AttributeInstallPayload);
};
