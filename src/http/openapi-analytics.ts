// OpenAPI operations of the analytics integrations: PUT, GET and DELETE
// /api/v1/connections/{braze,mixpanel,amplitude,posthog,ga4,clevertap} with the server key. The body schemas
// document what parse/v1/analytics-connections.ts reads (the domain's checkAnalyticsConnection
// holds the rules, shared with the CLI's `connections set-analytics`).
import { z } from 'zod';
import { ANALYTICS_VENDORS, FIELDS, REGIONS } from '../domain/analytics/vendors.ts';
import type { AnalyticsVendor } from '../store/postgres/analytics-connections.ts';
import type { Operation } from './openapi.ts';
import { CRUD_401, envelope, v1Op } from './openapi-responses.ts';

const NAMES: Record<AnalyticsVendor, string> = {
  braze: 'Braze',
  mixpanel: 'Mixpanel',
  amplitude: 'Amplitude',
  posthog: 'PostHog',
  ga4: 'GA4',
  clevertap: 'CleverTap',
};

const KEY_DOC: Record<AnalyticsVendor, string> = {
  braze: 'Braze REST API key with the users.track permission',
  mixpanel: "Mixpanel project token (the /engage API's $token)",
  amplitude: 'Amplitude project API key',
  posthog: 'PostHog project API key (phc_…)',
  ga4: 'GA4 Measurement Protocol API secret (Admin → Data streams → your app stream → Measurement Protocol API secrets)',
  clevertap: 'CleverTap account passcode (Settings → Project → Passcode), sent as X-CleverTap-Passcode',
};

const ENDPOINT_DOC: Record<AnalyticsVendor, string> = {
  braze:
    "your workspace's REST endpoint, https://rest.<cluster>.braze.com or https://rest.<cluster>.braze.eu (required)",
  mixpanel: 'data residency: us (default), eu or in',
  amplitude: 'data residency: us (default) or eu',
  posthog:
    'us (default, https://us.i.posthog.com), eu (https://eu.i.posthog.com) or the https URL of a self-hosted instance (a public DNS name; no IP address, localhost, .local, .internal or other private names, or user:password@; it must resolve to a public address)',
  ga4: 'us (default, the global host https://www.google-analytics.com) or eu (https://region1.google-analytics.com, data collected in the EU)',
  clevertap:
    "your account's region: eu1 (default, https://api.clevertap.com), in1, sg1, us1, aps3 or mec1 (https://<region>.api.clevertap.com)",
};

/** The account field's pattern (trimmed) and description, for the vendors that name one. */
const ACCOUNT_DOC: Partial<Record<AnalyticsVendor, { pattern: RegExp; description: string }>> = {
  ga4: {
    pattern: /^\s*\d{1,3}:\d{1,20}:(android|ios|web):[0-9a-f]{1,64}\s*$/,
    description: 'your Firebase app id, like 1:1234567890:android:0a1b2c3d4e5f6789 (shown back)',
  },
  clevertap: {
    pattern: /^\s*(TEST-)?[A-Z0-9]{3}-[A-Z0-9]{3}-[A-Z0-9]{4}\s*$/,
    description:
      'your CleverTap account id (Project ID), like 865-K5W-R47Z or TEST-865-K5W-R47Z, sent as X-CleverTap-Account-Id (shown back)',
  },
};

function bodySchema(vendor: AnalyticsVendor): z.ZodType {
  const f = FIELDS[vendor];
  const account = ACCOUNT_DOC[vendor];
  const endpoint = z.string().meta({ description: ENDPOINT_DOC[vendor] });
  return z.object({
    [f.key]: z
      .string()
      .regex(/^\s*[A-Za-z0-9_\-.:]{8,512}\s*$/)
      .meta({
        description: `${KEY_DOC[vendor]}: 8 to 512 letters, digits, _, -, . or : (trimmed); stored encrypted under SECRETS_KEY, never answered back`,
      }),
    [f.endpoint]: vendor === 'braze' ? endpoint : endpoint.nullable().optional(),
    ...(f.account && account
      ? { [f.account]: z.string().regex(account.pattern).meta({ description: account.description }) }
      : {}),
    active: z.boolean().meta({ description: 'only users registered or updated while active are sent' }),
  });
}

const connection = z.looseObject({
  connected: z.literal(true),
  vendor: z.string(),
  endpoint: z.string().meta({ description: 'where requests go (the region resolved to its host)' }),
  firebase_app_id: z.string().optional().meta({ description: 'GA4 only: the Firebase app id' }),
  account_id: z.string().optional().meta({ description: 'CleverTap only: the account id' }),
  active: z.boolean(),
  activated_at: z.string().nullable(),
  key_fingerprint: z.string().meta({ description: "the first 12 hex characters of the key's SHA-256" }),
  updated_at: z.string(),
});

function vendorOperations(vendor: AnalyticsVendor): Operation[] {
  const name = NAMES[vendor];
  const path = `/api/v1/connections/${vendor}`;
  const regions = Object.keys(REGIONS[vendor]);
  return [
    v1Op(
      {
        method: 'put',
        path,
        summary: `Connect the project to ${name}: each registered user's install attribution is sent as user properties${regions.length ? ` (regions: ${regions.join(', ')})` : ''}`,
        tag: 'connections',
        body: bodySchema(vendor),
        responses: {
          '200': { description: `\`${name} connection saved.\``, schema: envelope(connection) },
          '400': '`Invalid connection: <problem>`',
          '503':
            '`Secrets are not configured on this server (SECRETS_KEY). Ask its operator.` (service mode without SECRETS_KEY), or `Service temporarily unavailable. Please retry later.` (Postgres unreachable or restarting)',
        },
      },
      CRUD_401,
    ),
    v1Op(
      {
        method: 'get',
        path,
        summary: `The project's ${name} connection (never its key: a fingerprint)`,
        tag: 'connections',
        responses: {
          '200': {
            description: `\`${name} connection is set.\` or \`No ${name} connection is set for this project.\` (connected false)`,
            schema: envelope(z.union([connection, z.looseObject({ connected: z.literal(false), vendor: z.string() })])),
          },
        },
      },
      CRUD_401,
    ),
    v1Op(
      {
        method: 'delete',
        path,
        summary: `Remove the ${name} connection: its queued deliveries end dead (\`not sent: the ${vendor} connection was removed\`)`,
        tag: 'connections',
        responses: {
          '200': {
            description: `\`${name} connection removed.\` or \`No ${name} connection was set; nothing was removed.\``,
            schema: envelope(z.looseObject({ removed: z.boolean() })),
          },
        },
      },
      CRUD_401,
    ),
  ];
}

export const ANALYTICS_OPERATIONS: Operation[] = ANALYTICS_VENDORS.flatMap(vendorOperations);
