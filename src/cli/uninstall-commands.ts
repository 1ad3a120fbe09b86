// `uninstalls set-credentials` stores a project's FCM service account or APNs key (sealed under
// SECRETS_KEY) for uninstall tracking; `uninstalls run` runs today's pass now (the worker's cron
// does it daily), printing its tally. Beside a running pass (the worker's) it shares the work:
// each install is pushed by one of them; it says so, and waits for the other's last installs.
import { readFile } from 'node:fs/promises';
import { InputError } from '../domain/projects/input-error.ts';
import { PUSH_CLAIM_MINUTES } from '../domain/uninstalls/claim-push-page.ts';
import { projectSenders } from '../domain/uninstalls/project-senders.ts';
import { runUninstallPass } from '../domain/uninstalls/run-uninstall-pass.ts';
import { setPushCredentials } from '../domain/uninstalls/set-push-credentials.ts';
import type { CommandSpec } from './commands.ts';

export const UNINSTALL_COMMANDS: CommandSpec[] = [
  {
    path: ['uninstalls', 'set-credentials'],
    summary: 'store FCM (service account JSON) or APNs (key_id, team_id, bundle_id, private_key JSON) credentials',
    needs: 'postgres',
    flags: {
      project: { type: 'string', required: true, description: 'project id' },
      provider: { type: 'string', required: true, description: 'FCM or APNS' },
      file: { type: 'string', required: true, description: 'credentials JSON file' },
    },
    run: async (deps, f) => {
      const provider = String(f.provider).toUpperCase();
      if (provider !== 'FCM' && provider !== 'APNS') {
        throw new InputError('--provider must be FCM or APNS');
      }
      let raw: unknown;
      try {
        raw = JSON.parse(await readFile(String(f.file), 'utf8'));
      } catch {
        throw new InputError(`--file: cannot read JSON from '${String(f.file)}'`);
      }
      await setPushCredentials(deps, String(f.project), provider, raw);
      return { json: { provider, stored: true }, text: `${provider} credentials stored (encrypted)` };
    },
  },
  {
    path: ['uninstalls', 'run'],
    summary: "run today's uninstall-tracking pass now (silent pushes to installs with a push token)",
    needs: 'postgres',
    flags: {},
    run: async (deps, _f, progress) => {
      const t = await runUninstallPass({ ...deps, now: Date.now }, projectSenders(deps), {
        onWait: (held) =>
          progress(
            `another uninstall pass is running and holds ${held} of today's installs: waiting until it has recorded them (a pass that stopped gives them up within ${PUSH_CLAIM_MINUTES} minutes)`,
          ),
      });
      const shared = t.held > 0 ? `; ${t.held} held by another pass (waited ${Math.round(t.waitedMs / 1000)} s)` : '';
      return {
        json: t,
        text: `${t.targets} targets: ${t.delivered} delivered, ${t.unregistered} unregistered, ${t.errors} errors, ${t.skipped} skipped, ${t.uninstalled} new uninstalls in ${t.ms} ms${shared}`,
      };
    },
  },
];
