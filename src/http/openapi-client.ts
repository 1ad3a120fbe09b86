// OpenAPI operations of the /api/client install and user routes (init, attribution-data,
// handle-deeplink, trigger, set-user-data, customer-user-id), and the answers every client route
// shares. The body schemas document what the SDKs send; the parsers in http/parse/client read
// fields one by one (tolerant of real SDK bodies, exact texts per failure).
import { z } from 'zod';
import type { Operation, Response } from './openapi.ts';
import {
  attributionDataSchema,
  envelope,
  initAnswerSchema,
  SERVER_FAILURES,
  skanFields,
  UNSUPPORTED_MEDIA_TYPE,
} from './openapi-responses.ts';
import {
  attributionDataBodySchema,
  clientCommonDoc,
  handleDeeplinkBodySchema,
  initBodySchema,
} from './parse/client/schemas.ts';
import { trimmedText } from './parse/doc-patterns.ts';

const TOKEN_400 = '`Invalid or missing project token.`';
const INSTALL_ID_400 = '`install_instance_id must be a non-empty string of at most 128 characters.`';
const INSTALL_NOT_FOUND = '`Install not found. Call init first.`';

/**
 * Answers every client route can give besides its own (signature, body size and type, rate limit,
 * backlog, store failures). attribution-data, a read, is never refused for the backlog.
 */
export const CLIENT_ERRORS: Record<string, string> = {
  '401':
    'SDK request signature: `Invalid request signature.` (unknown or revoked key, timestamp off by more than 5 minutes, wrong HMAC) or `Request signature required.` (unsigned while the project enforces signing)',
  '413': '`Request body too large.` (over BODY_LIMIT_CLIENT_BYTES, 64 KiB by default)',
  '415': UNSUPPORTED_MEDIA_TYPE,
  '429':
    '`Rate limit exceeded. Please try again later.`: more than 25 requests per second for this token; Retry-After: 1',
  '500': SERVER_FAILURES['500'],
  '503': `\`Too much data is waiting to be stored. Please retry later.\`: the fact backlog is over FACT_BACKLOG_MAX_ROWS; Retry-After: 30. ${SERVER_FAILURES['503']}`,
};
const { '401': _signature, '503': _backlog, ...READ_ERRORS } = CLIENT_ERRORS;

/** The SKAN values iOS installs get under `data` once evaluated (README "SKAdNetwork"). */
const SKAN_FIELDS =
  'on iOS installs with SKAN values also fine_conversion_value, coarse_conversion_value, lock_postback';

const client = clientCommonDoc;

/** An id sent as a JSON number: read as its text, so only within 2^53 (past it, it arrives rounded). */
export const idNumber = z.number().min(-Number.MAX_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER);

const userIdValue = z.union([z.string().regex(new RegExp(trimmedText(1, 256, { noNul: true }))), idNumber]).meta({
  description:
    'your user id: trimmed, then 1 to 256 characters without NUL; a number is taken as its text (a whole number past 2^53 is refused: it arrives rounded)',
});

/** name / email / phone: text (a number or boolean as its text) cut at 512 characters; "" or null is none. */
const detail = (description: string) =>
  z
    .union([z.string(), z.number(), z.boolean()])
    .nullable()
    .optional()
    .meta({ description: `${description}; trimmed and cut at 512 characters; "" or null: none` });

const userData = (idRequired: boolean) =>
  z
    .looseObject({
      id: idRequired
        ? userIdValue
        : z
            .union([userIdValue, z.literal(''), z.null()])
            .optional()
            .meta({ description: 'absent, null or "": none' }),
      name: detail('name'),
      email: detail('plain, or SHA-256 hex when the app hashes it'),
      phone: detail('plain, or SHA-256 hex when the app hashes it'),
      is_first_time_user: z.union([z.boolean(), z.enum(['true', 'false'])]).optional(),
      user_created_at: z.union([z.string(), z.number()]).optional().meta({ description: 'cut at 64 characters' }),
    })
    .meta({ description: 'any other keys are kept as sent and passed back by attributed-users' });

const deviceData = z.looseObject({}).optional().meta({ description: 'device facts, stored with the user' });

const triggerBodySchema = z.looseObject({
  ...client,
  user_data: userData(true),
  data: z.looseObject({ device_data: deviceData }).optional().meta({
    description:
      "pass-through: its device_data is stored with the user; the whole object (capped) goes only into the signup webhook's additional_data",
  }),
  device_data: deviceData.meta({ description: 'fallback when data.device_data is absent' }),
  is_first_time_customer: z.boolean().optional().meta({ description: 'wins over user_data.is_first_time_user' }),
  customer_created_at: z
    .string()
    .optional()
    .meta({ description: 'cut at 64 characters; wins over user_data.user_created_at' }),
});

const setUserDataBodySchema = z.looseObject({
  ...client,
  user_data: userData(false).meta({ description: 'without id, the user trigger tied to the install is updated' }),
  device_data: deviceData,
});

const customerUserIdBodySchema = z.looseObject({ ...client, user_id: userIdValue });

const clientOp = (
  path: string,
  summary: string,
  body: z.ZodType,
  responses: Record<string, Response>,
  errors: Record<string, string> = CLIENT_ERRORS,
): Operation => ({
  method: 'post',
  path: `/api/client/${path}`,
  summary,
  tag: 'client',
  auth: 'bodyToken',
  body,
  responses: { ...errors, ...responses },
});

export const CLIENT_OPERATIONS: Operation[] = [
  clientOp('init', 'Register an install or app open; starts attribution', initBodySchema, {
    '202': {
      description:
        'message `Install event accepted for processing` (no envelope; a retried init of the same install_instance_id returns the same processing_id)',
      schema: initAnswerSchema,
    },
    '400': `${TOKEN_400}, ${INSTALL_ID_400}, or a field of the wrong type (\`<field> must be a string.\`)`,
  }),
  clientOp(
    'attribution-data',
    'Attribution of an install as apps parse it; poll until attribution_source is not PENDING',
    attributionDataBodySchema,
    {
      '200': {
        description:
          '`Attribution data fetched successfully` or `Attribution is still being processed. Poll again shortly.`; final answers cached 24 h',
        schema: envelope(attributionDataSchema),
      },
      '400': `${INSTALL_ID_400} or ${INSTALL_NOT_FOUND}`,
      '401': `${TOKEN_400} (401 on this route), \`Invalid request signature.\` or \`Request signature required.\``,
      '503': SERVER_FAILURES['503'],
    },
    READ_ERRORS,
  ),
  clientOp(
    'handle-deeplink',
    'Report a deeplink open (deferred attribution, re-engagement)',
    handleDeeplinkBodySchema,
    {
      '200': {
        description: `\`Deeplink processed successfully\`; ${SKAN_FIELDS}`,
        schema: envelope(
          z.looseObject({ deeplink: z.string(), is_linkrunner: z.boolean(), processing: z.boolean(), ...skanFields }),
        ),
      },
      '400': `${TOKEN_400}, ${INSTALL_ID_400} or \`deeplink_url must be a non-empty string.\``,
    },
  ),
  clientOp(
    'trigger',
    'Register the signed-up user on the install (counts one sign-up per new user)',
    triggerBodySchema,
    {
      '200': {
        description: `\`User registered successfully\` or \`User already registered; details updated\`; trigger is true only when this call registered the user; deeplink is the campaign's once attributed; ${SKAN_FIELDS}`,
        schema: envelope(z.looseObject({ deeplink: z.string().nullable(), trigger: z.boolean(), ...skanFields })),
      },
      '400': `${TOKEN_400}, ${INSTALL_ID_400}, \`user_data must be an object.\`, \`user_data.id must be a non-empty string of at most 256 characters.\` or ${INSTALL_NOT_FOUND}`,
    },
  ),
  clientOp('set-user-data', "Update an existing user's details (creates nothing)", setUserDataBodySchema, {
    '200': {
      description:
        '`User data updated successfully` with updated: true, or `No registered user found for this request; nothing was updated. Call trigger first.` with updated: false',
      schema: envelope(z.looseObject({ updated: z.boolean() })),
    },
    '400': `${TOKEN_400}, ${INSTALL_ID_400}, \`user_data must be an object.\` or a bad user_data field`,
  }),
  clientOp(
    'customer-user-id',
    'Tie the install to your user id (registers no user, counts no sign-up)',
    customerUserIdBodySchema,
    {
      '200': {
        description: '`Customer user id set successfully`',
        schema: envelope(z.looseObject({ user_id: z.string() })),
      },
      '400': `${TOKEN_400}, ${INSTALL_ID_400}, \`user_id must be a non-empty string of at most 256 characters.\` or ${INSTALL_NOT_FOUND}`,
    },
  ),
];
