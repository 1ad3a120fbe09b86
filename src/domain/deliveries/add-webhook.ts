// Adds (or updates) a project webhook for install and/or signup notifications. The signing secret
// is generated here, shown once, and stored sealed under SECRETS_KEY. Only http(s) URLs without
// credentials; the URL is the project's own endpoint (the operator adds it through the CLI).
import { randomBytes } from 'node:crypto';
import type { PgDeps } from '../../deps.ts';
import { encryptSecret, loadSecretsKey } from '../../lib/secrets.ts';
import { insertWebhook } from '../../store/postgres/connections.ts';
import { InputError } from '../projects/input-error.ts';
import { requireProject } from '../projects/require-project.ts';
import { webhookSecretContext } from './send-webhook.ts';

export const WEBHOOK_EVENTS = ['install', 'signup'] as const;
export const MAX_WEBHOOK_URL_CHARS = 2048;

export async function addWebhook(
  deps: Pick<PgDeps, 'sql' | 'config'>,
  projectId: string,
  input: { url: string; events: string[] },
): Promise<{ id: string; url: string; events: string[]; secret: string; replaced: boolean }> {
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    throw new InputError('--url must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InputError('--url must be an absolute http(s) URL');
  }
  // fetch refuses user:password@ URLs, so such a hook would never be delivered; the receiver checks
  // x-signature instead. The URL is not echoed: it holds a password.
  if (url.username !== '' || url.password !== '') {
    throw new InputError('--url must not hold credentials (user:password@): receivers check x-signature');
  }
  const bad = input.events.find((e) => !(WEBHOOK_EVENTS as readonly string[]).includes(e));
  if (bad !== undefined || input.events.length === 0) {
    throw new InputError(`--events is a comma list of ${WEBHOOK_EVENTS.join(', ')}`);
  }
  await requireProject(deps, projectId);
  const secret = `whsec_${randomBytes(24).toString('base64url')}`;
  const href = url.toString();
  // Written out (percent-encoded) as it is stored and POSTed to; the key (project, url) must fit an index.
  if (href.length > MAX_WEBHOOK_URL_CHARS) {
    throw new InputError(`--url is at most ${MAX_WEBHOOK_URL_CHARS} characters (percent-encoded)`);
  }
  const sealed = encryptSecret(await loadSecretsKey(deps.config), secret, webhookSecretContext(projectId, href));
  const hook = await insertWebhook(deps.sql, { projectId, url: href, secretEnc: sealed, events: input.events });
  // The same URL again gets a new secret: receivers checking the old one refuse what follows.
  return { id: hook.id, url: href, events: input.events, secret, replaced: hook.replaced };
}
