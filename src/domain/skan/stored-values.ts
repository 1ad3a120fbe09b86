// The install's stored SKAN values as the evaluator's type, or null before the first evaluation.
import type { SkanInstallState } from '../../store/postgres/skan.ts';
import type { SkanValues } from './evaluate-schema.ts';
import { COARSE_VALUES, type Coarse } from './schema.ts';

export function storedValues(s: SkanInstallState): SkanValues | null {
  if (s.fine === null || s.window === null) {
    return null;
  }
  const coarse = (COARSE_VALUES as readonly string[]).includes(s.coarse ?? '') ? (s.coarse as Coarse) : 'low';
  return { fine: s.fine, coarse, lock: s.locked, window: s.window };
}
