// Operator inputs of the `facts` commands, checked with messages that name the flag.
import { InputError } from '../projects/input-error.ts';
import { FACT_TABLES, type FactTable, isFactTable } from './tables.ts';

export function optionalFactTable(table: string | undefined): FactTable | undefined {
  if (table !== undefined && !isFactTable(table)) {
    throw new InputError(`--table must be one of ${FACT_TABLES.join(', ')} (got '${table}')`);
  }
  return table;
}

export function positiveIntFlag(name: string, value: string | undefined, max = 1_000_000_000_000): number | undefined {
  return integerFlag(name, value, 1, max);
}

/**
 * A flag of digits only, from `min` (0 or 1) to `max`, or undefined when absent: Number() would
 * read '' and ' ' as 0 (an unset shell variable), '0x10' as 16 and '1e2' as 100.
 */
export function integerFlag(name: string, value: string | undefined, min: 0 | 1, max: number): number | undefined {
  if (value === undefined) {
    return undefined;
  }
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) {
    const what = min === 1 ? 'a positive integer' : 'a whole number, 0 or more';
    throw new InputError(`--${name} must be ${what} (got '${value}')`);
  }
  return n;
}
