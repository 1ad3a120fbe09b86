// Report order: sort_field × sort_order over computed values (metrics.ts sortValues, an allowlist;
// nothing from the request reaches SQL). A "-" value (undefined) sorts after every number in both
// orders. Ratios (roas, conversion) compare exactly, never as floats: as floats, 0.3 / 0.1 sorted
// below 3 / 1 though both show 3.00x (a tie: newest first), and a roas of 5.0249999999999999 (5.02x)
// sorted above 1.005 / 0.2 (5.03x). Ties go to the newest campaign first (created_at, then id,
// descending), so pages are stable whatever the sort.
import type { SortValue, SortValues } from './metrics.ts';
import { compareRatios, type Ratio } from './ratio.ts';
import type { SortField, SortOrder } from './report-input.ts';

export type Sortable = { id: number; createdAt: Date; values: SortValues };

const asRatio = (v: Exclude<SortValue, undefined>): Ratio => (typeof v === 'object' ? v : { num: BigInt(v), den: 1n });

/** a vs b (negative when a < b); undefined after every value. */
function compareValues(a: SortValue, b: SortValue): number {
  if (a === undefined || b === undefined) {
    return a === b ? 0 : a === undefined ? 1 : -1;
  }
  if (typeof a === 'object' || typeof b === 'object') {
    return compareRatios(asRatio(a), asRatio(b));
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

export function compareForReport(field: SortField, order: SortOrder) {
  const sign = order === 'ascending' ? 1 : -1;
  return (a: Sortable, b: Sortable): number => {
    const va = a.values[field];
    const vb = b.values[field];
    const byValue = compareValues(va, vb);
    if (byValue !== 0) {
      // "-" goes last in both orders: only defined values follow sort_order.
      return va === undefined || vb === undefined ? byValue : sign * byValue;
    }
    const byCreated = b.createdAt.getTime() - a.createdAt.getTime();
    return byCreated !== 0 ? byCreated : b.id - a.id;
  };
}
