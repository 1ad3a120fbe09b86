// Stores a project's deep-link verification files from JSON files on disk: the AASA must be a JSON
// object, assetlinks.json a JSON array of objects (the shapes Apple and Google read). A file left
// out keeps its stored value.
import { readFile } from 'node:fs/promises';
import type { PgDeps } from '../../deps.ts';
import { updateWellKnown, type WellKnownFiles } from '../../store/postgres/well-known.ts';
import { InputError } from './input-error.ts';
import { requireProject } from './require-project.ts';

// Apple refuses AASA files over 128 KB; the same cap suits assetlinks.json.
const MAX_BYTES = 128 * 1024;

export type SetWellKnownInput = { aasaFile?: string; assetlinksFile?: string };

async function readJsonFile(flag: string, file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new InputError(`${flag} '${file}' cannot be read: ${(err as Error).message}`);
  }
  if (Buffer.byteLength(text) > MAX_BYTES) {
    throw new InputError(`${flag} '${file}' is larger than ${MAX_BYTES / 1024} KB`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InputError(`${flag} '${file}' is not valid JSON: ${(err as Error).message}`);
  }
}

const isObject = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);

export async function setWellKnown(
  deps: Pick<PgDeps, 'sql'>,
  projectId: string,
  input: SetWellKnownInput,
): Promise<WellKnownFiles> {
  await requireProject(deps, projectId);
  if (input.aasaFile === undefined && input.assetlinksFile === undefined) {
    throw new InputError('give --aasa-file, --assetlinks-file or both');
  }
  let aasa: unknown;
  let assetlinks: unknown;
  if (input.aasaFile !== undefined) {
    aasa = await readJsonFile('--aasa-file', input.aasaFile);
    if (!isObject(aasa)) {
      throw new InputError(`--aasa-file '${input.aasaFile}' must hold a JSON object (e.g. {"applinks": {...}})`);
    }
  }
  if (input.assetlinksFile !== undefined) {
    assetlinks = await readJsonFile('--assetlinks-file', input.assetlinksFile);
    if (!Array.isArray(assetlinks) || !assetlinks.every(isObject)) {
      throw new InputError(`--assetlinks-file '${input.assetlinksFile}' must hold a JSON array of objects`);
    }
  }
  const stored = await updateWellKnown(deps.sql, projectId, { appleAppSiteAssociation: aasa, assetlinks });
  if (!stored) {
    throw new InputError(`project '${projectId}' not found (see: projects list)`);
  }
  return stored;
}
