// Maps a project's event name to AddToCart or ViewContent, or a payment type to Purchase (spec:
// "Commerce events forwarded to the ad-network dataset"). Re-mapping a name replaces its target.
import type { PgDeps } from '../../deps.ts';
import { type SourceKind, upsertEventMapping } from '../../store/postgres/connections.ts';
import { PAYMENT_TYPES } from '../events/capture-payment.ts';
import { InputError } from '../projects/input-error.ts';
import { requireProject } from '../projects/require-project.ts';

export type MappingInput = { kind: SourceKind; name: string; to: string };

export function checkMapping(m: MappingInput): string | undefined {
  if (m.kind !== 'event' && m.kind !== 'payment') {
    return "kind must be 'event' or 'payment'";
  }
  if (m.name.trim() === '' || m.name.length > 256) {
    return 'name must be 1 to 256 characters';
  }
  if (m.kind === 'event' && m.to !== 'AddToCart' && m.to !== 'ViewContent') {
    return "an event maps to 'AddToCart' or 'ViewContent'";
  }
  if (m.kind === 'payment' && m.to !== 'Purchase') {
    return "a payment type maps to 'Purchase'";
  }
  if (m.kind === 'payment' && !(PAYMENT_TYPES as readonly string[]).includes(m.name)) {
    return `a payment type is one of ${PAYMENT_TYPES.join(', ')}`;
  }
  return undefined;
}

export async function mapEvent(deps: Pick<PgDeps, 'sql'>, projectId: string, m: MappingInput): Promise<MappingInput> {
  const problem = checkMapping(m);
  if (problem) {
    throw new InputError(problem);
  }
  await requireProject(deps, projectId);
  await upsertEventMapping(deps.sql, { projectId, kind: m.kind, name: m.name, standardEvent: m.to });
  return m;
}
