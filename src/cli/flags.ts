// --flag value parsing for the CLI, strict: unknown flags and missing values are errors.
import { parseArgs } from 'node:util';

export type FlagSpec = Record<string, { type: 'string' | 'boolean'; required?: boolean; description: string }>;
export type Flags = Record<string, string | boolean | undefined> & { json?: boolean };

export function parseFlags(args: string[], spec: FlagSpec): Flags {
  const options: Record<string, { type: 'string' | 'boolean' }> = { json: { type: 'boolean' } };
  for (const [name, f] of Object.entries(spec)) {
    options[name] = { type: f.type };
  }
  const { values, positionals } = parseArgs({ args, options, strict: true, allowPositionals: true });
  if (positionals.length > 0) {
    throw new Error(`unexpected argument '${positionals[0]}'`);
  }
  for (const [name, f] of Object.entries(spec)) {
    if (f.required && (values[name] === undefined || values[name] === '')) {
      throw new Error(`--${name} is required`);
    }
  }
  return values as Flags;
}
