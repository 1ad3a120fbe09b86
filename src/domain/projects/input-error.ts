// A bad operator input (CLI flags): the message says which flag and what is accepted.
export class InputError extends Error {}

/** A true/false flag, in any case and trimmed (`--active TRUE`); anything else names the flag. */
export function trueOrFalse(flag: string, value: string): boolean {
  const v = value.trim().toLowerCase();
  if (v !== 'true' && v !== 'false') {
    throw new InputError(`--${flag} '${value}' must be true or false`);
  }
  return v === 'true';
}
