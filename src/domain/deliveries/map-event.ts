// Maps a project's event name to AddToCart or ViewContent, or a payment type to Purchase (spec:
// "Commerce events forwarded to the ad-network dataset"). Re-mapping a name replaces its target.
import type { PgDeps } from '../../deps.ts';
import { storable } from '../../lib/storable.ts';
import { charLength } from '../../lib/validate.ts';
import { type SourceKind, upsertEventMapping } from '../../store/postgres/connections.ts';
import { PAYMENT_TYPES } from '../events/capture-payment.ts';
import { InputError } from '../projects/input-error.ts';
import { requireProject } from '../projects/require-project.ts';

export type MappingInput = { kind: SourceKind; name: string; to: string };

export function checkMapping(m: MappingInput): string | undefined {
  if (m.kind !== 'event' && m.kind !== 'payment') {
    return "kind must be 'event' or 'payment'";
  }
  // Names are read as capture-event stores them (NUL dropped, a lone surrogate as U+FFFD), so a
  // mapping matches the stored name and Postgres never sees a NUL.
  const name = storable(m.name);
  if (name.trim() === '' || charLength(name) > 256) {
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
  const name = storable(m.name);
  await upsertEventMapping(deps.sql, { projectId, kind: m.kind, name, standardEvent: m.to });
  return { ...m, name };
}
