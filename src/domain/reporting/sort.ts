// Report order: sort_field × sort_order over computed values (metrics.ts sortValues, an allowlist;
// nothing from the request reaches SQL). A "-" value (undefined) sorts after every number in both
// orders. Ties go to the newest campaign first (created_at, then id, descending), so pages are
// stable whatever the sort.
import type { SortValues } from './metrics.ts';
import type { SortField, SortOrder } from './report-input.ts';

export type Sortable = { id: number; createdAt: Date; values: SortValues };

export function compareForReport(field: SortField, order: SortOrder) {
  const sign = order === 'ascending' ? 1 : -1;
  return (a: Sortable, b: Sortable): number => {
    const va = a.values[field];
    const vb = b.values[field];
    if (va !== vb) {
      if (va === undefined) {
        return 1;
      }
      if (vb === undefined) {
        return -1;
      }
      return va < vb ? -sign : sign;
    }
    const byCreated = b.createdAt.getTime() - a.createdAt.getTime();
    return byCreated !== 0 ? byCreated : b.id - a.id;
  };
}
