// SKAN values under `data` (real-clients §3): fine_conversion_value a JSON integer,
// coarse_conversion_value a lowercase string, lock_postback a boolean. Nothing when absent.
import type { SkanValues } from '../../domain/skan/evaluate-schema.ts';

export type SkanFields = { fine_conversion_value?: number; coarse_conversion_value?: string; lock_postback?: boolean };

export function presentSkan(v: SkanValues | undefined): SkanFields {
  if (!v) {
    return {};
  }
  return { fine_conversion_value: Math.trunc(v.fine), coarse_conversion_value: v.coarse, lock_postback: v.lock };
}
