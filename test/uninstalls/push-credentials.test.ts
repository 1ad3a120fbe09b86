// Push credentials for uninstall tracking: validated, stored sealed (the plaintext never appears in
// Postgres) and unsealed into the project's senders; a bad document names the field, not the value.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { projectSenders } from '../../src/domain/uninstalls/project-senders.ts';
import { setPushCredentials } from '../../src/domain/uninstalls/set-push-credentials.ts';
import { newProject, useHarness } from '../support/harness.ts';

const h = useHarness({ env: { SECRETS_KEY: randomBytes(32).toString('hex') } });
const pem = (type: 'rsa' | 'ec') =>
  (type === 'rsa'
    ? generateKeyPairSync('rsa', { modulusLength: 2048 })
    : generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  ).privateKey
    .export({ type: 'pkcs8', format: 'pem' })
    .toString();

describe('push credentials', () => {
  it('when FCM and APNs credentials are set, then they are stored sealed and build both senders', async () => {
    const p = await newProject(h().deps);
    const fcm = { project_id: 'fb-proj', client_email: 'svc@fb-proj.iam.gserviceaccount.com', private_key: pem('rsa') };
    const apns = { key_id: 'ABC123DEFG', team_id: 'TEAM123456', bundle_id: 'com.example.app', private_key: pem('ec') };

    await setPushCredentials(h().deps, p.project.id, 'FCM', fcm);
    await setPushCredentials(h().deps, p.project.id, 'APNS', apns);
    const senders = await projectSenders(h().deps)(p.project.id);

    const rows = await h().deps.sql`SELECT provider, credentials_enc FROM push_credentials
      WHERE project_id = ${p.project.id} ORDER BY provider`;
    expect(rows.map((r) => r.provider)).toEqual(['APNS', 'FCM']);
    for (const r of rows) {
      expect(r.credentials_enc).toMatch(/^v1\./);
      expect(r.credentials_enc).not.toContain('PRIVATE KEY');
      expect(r.credentials_enc).not.toContain('fb-proj');
    }
    expect(senders.FCM?.provider).toBe('FCM');
    expect(senders.APNS?.provider).toBe('APNS');
  });

  it('when the APNs document lacks a team id, then the error names the field and nothing is stored', async () => {
    const p = await newProject(h().deps);

    await expect(
      setPushCredentials(h().deps, p.project.id, 'APNS', {
        key_id: 'ABC123DEFG',
        bundle_id: 'x',
        private_key: pem('ec'),
      }),
    ).rejects.toThrow(/^--file: invalid APNS credentials \(team_id: /);
    expect(await projectSenders(h().deps)(p.project.id)).toEqual({});
  });
});
