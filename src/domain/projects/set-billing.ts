// Suspends or restores a project's billing (operator CLI). While suspended, reporting answers 402
// with the project's payment link (spec: Errors 402; product-notes "Billing"). The link is kept
// when not given, and must be an http(s) URL: it is handed to API callers as is.
import type { PgDeps } from '../../deps.ts';
import { isSafeWebUrl } from '../../lib/validate.ts';
import { updateProjectBilling } from '../../store/postgres/projects.ts';
import { InputError, trueOrFalse } from './input-error.ts';
import { requireProject } from './require-project.ts';

export type SetBillingInput = { suspended: string; paymentLink?: string };

export async function setBilling(
  deps: Pick<PgDeps, 'sql'>,
  projectId: string,
  input: SetBillingInput,
): Promise<{ suspended: boolean; paymentLink: string | null }> {
  const project = await requireProject(deps, projectId);
  const suspended = trueOrFalse('suspended', input.suspended);
  const link = input.paymentLink?.trim();
  if (link !== undefined && link !== '' && !isSafeWebUrl(link)) {
    throw new InputError(`--payment-link '${input.paymentLink}' must be an http(s) URL`);
  }
  const paymentLink = link === undefined ? project.paymentLink : link === '' ? null : link;
  await updateProjectBilling(deps.sql, project.id, suspended, paymentLink);
  return { suspended, paymentLink };
}
