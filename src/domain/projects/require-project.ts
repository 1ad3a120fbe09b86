// Finds a project by id for operator commands, or says which id was not found.
import type { PgDeps } from '../../deps.ts';
import { findProjectById, type Project } from '../../store/postgres/projects.ts';
import { InputError } from './input-error.ts';

export async function requireProject(deps: Pick<PgDeps, 'sql'>, projectId: string): Promise<Project> {
  const project = await findProjectById(deps.sql, projectId);
  if (!project) {
    throw new InputError(`project '${projectId}' not found (see: projects list)`);
  }
  return project;
}
