// Creates a project with its token and first server key. The key is returned once and only its
// SHA-256 is stored.
import type { PgDeps } from '../../deps.ts';
import { hasControlChars } from '../../lib/control-chars.ts';
import { hashKey, newProjectToken, newServerKey } from '../../lib/ids.ts';
import { charLength, isSafeWebUrl, isValidCurrency, isValidTimeZone } from '../../lib/validate.ts';
import { asSql, type Sql } from '../../store/postgres/pool.ts';
import { insertProject, insertServerKey, type Project } from '../../store/postgres/projects.ts';
import { InputError } from './input-error.ts';

export type CreateProjectInput = { name: string; timezone?: string; currency?: string; website?: string };

export async function createProject(
  deps: Pick<PgDeps, 'sql'>,
  input: CreateProjectInput,
): Promise<{ project: Project; serverKey: string }> {
  return deps.sql.begin((tx) => createProjectIn(asSql(tx), input));
}

/** createProject inside the caller's transaction. */
export async function createProjectIn(
  tx: Sql,
  input: CreateProjectInput,
): Promise<{ project: Project; serverKey: string }> {
  const name = input.name.trim();
  if (name === '' || charLength(name) > 200) {
    throw new InputError('--name must be 1 to 200 characters');
  }
  // Names are printed in the CLI's tables: a pasted newline cut the project's row in two.
  if (hasControlChars(name)) {
    throw new InputError('--name must not hold control characters (a newline, a tab, escape codes)');
  }
  const timezone = input.timezone ?? 'UTC';
  if (!isValidTimeZone(timezone)) {
    throw new InputError(`--timezone '${timezone}' is not an IANA time zone (e.g. Europe/Berlin, Asia/Kolkata)`);
  }
  const currency = (input.currency ?? 'USD').toUpperCase();
  if (!isValidCurrency(currency)) {
    throw new InputError(`--currency '${input.currency}' is not an ISO 4217 code (e.g. USD, EUR, INR)`);
  }
  if (input.website !== undefined && !isSafeWebUrl(input.website)) {
    throw new InputError(`--website '${input.website}' is not an http(s) URL`);
  }
  const serverKey = newServerKey();
  const project = await insertProject(tx, {
    name,
    timezone,
    displayCurrency: currency,
    token: newProjectToken(),
    website: input.website ?? null,
  });
  await insertServerKey(tx, project.id, hashKey(serverKey), serverKey.slice(0, 7));
  return { project, serverKey };
}
