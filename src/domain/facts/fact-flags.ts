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
  if (value === undefined) {
    return undefined;
  }
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1 || n > max) {
    throw new InputError(`--${name} must be a positive integer (got '${value}')`);
  }
  return n;
}
