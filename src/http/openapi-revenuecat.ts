// OpenAPI operations of the RevenueCat integration: the connection (its authorization token) under
// /api/v1 with the server key, and the inbound webhook POST /webhook/revenuecat with that token.
// The webhook's body schema documents what parse/webhooks/revenuecat.ts reads; RevenueCat's other
// fields are accepted and ignored.
import { z } from 'zod';
import { PAYMENT_STATUSES, PAYMENT_TYPES } from '../domain/events/capture-payment.ts';
import { MAX_AMOUNT } from '../lib/money.ts';
import type { Operation } from './openapi.ts';
import { CRUD_401, envelope, SERVER_FAILURES, UNSUPPORTED_MEDIA_TYPE, v1Op } from './openapi-responses.ts';

const iso = z.string().meta({ description: 'ISO 8601 timestamp' });
const connection = {
  webhook_url: z.string().meta({ description: 'PUBLIC_URL + /webhook/revenuecat: paste it into RevenueCat' }),
  token_prefix: z.string().meta({ description: 'the first 7 characters of the token, to tell tokens apart' }),
  created_at: iso,
  rotated_at: iso.nullable(),
};

const CONNECTION_OPERATIONS: Operation[] = [
  v1Op(
    {
      method: 'put',
      path: '/api/v1/connections/revenuecat',
      summary:
        'Generate the RevenueCat webhook authorization token, or a new one in its place (the previous one stops working); it is answered only here',
      tag: 'connections',
      responses: {
        '200': {
          description:
            '`RevenueCat authorization token created. …` or `RevenueCat authorization token rotated. …`; data.authorization_token goes into RevenueCat\'s "Authorization header value"',
          schema: envelope(
            z.looseObject({
              connected: z.literal(true),
              authorization_token: z
                .string()
                .meta({ description: 'rc_ and 43 URL-safe characters; only its SHA-256 is kept' }),
              ...connection,
            }),
          ),
        },
      },
    },
    CRUD_401,
  ),
  v1Op(
    {
      method: 'get',
      path: '/api/v1/connections/revenuecat',
      summary: 'Whether the project has a RevenueCat authorization token (never the token itself)',
      tag: 'connections',
      responses: {
        '200': {
          description:
            '`RevenueCat authorization token is set.` or `No RevenueCat authorization token is set for this project.` (connected false)',
          schema: envelope(
            z.union([
              z.looseObject({ connected: z.literal(true), ...connection }),
              z.looseObject({ connected: z.literal(false), webhook_url: connection.webhook_url }),
            ]),
          ),
        },
      },
    },
    CRUD_401,
  ),
  v1Op(
    {
      method: 'delete',
      path: '/api/v1/connections/revenuecat',
      summary: "Remove the project's RevenueCat authorization token: the webhook then answers 401",
      tag: 'connections',
      responses: {
        '200': {
          description:
            '`RevenueCat authorization token removed.` or `No RevenueCat authorization token was set; nothing was removed.`',
          schema: envelope(z.looseObject({ removed: z.boolean() })),
        },
      },
    },
    CRUD_401,
  ),
];

const PAYMENT_TYPE_NOTE = 'required when event.type maps to a payment';
const text = (max: number) => z.string().max(max).nullable().optional();
const price = z.number().min(-MAX_AMOUNT).max(MAX_AMOUNT).nullable().optional();

const webhookBodySchema = z.looseObject({
  api_version: z.string().optional(),
  event: z.looseObject({
    type: z.string().min(1).max(64).meta({
      description:
        'INITIAL_PURCHASE → FIRST_PAYMENT, RENEWAL → SUBSCRIPTION_RENEWED, NON_RENEWING_PURCHASE → ONE_TIME (price 0, a free trial: PAYMENT_INITIATED), CANCELLATION → SUBSCRIPTION_CANCELLED (a refund: SUBSCRIPTION_REFUNDED, applied to the refunded payment), BILLING_ISSUE → SUBSCRIPTION_BILLING_ISSUE, REFUND_REVERSED gives the refunded payment back; TEST, UNCANCELLATION, PRODUCT_CHANGE and every other type are acknowledged and not stored',
    }),
    id: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .meta({ description: `the event id; ${PAYMENT_TYPE_NOTE}` }),
    environment: z
      .enum(['PRODUCTION', 'SANDBOX'])
      .optional()
      .meta({
        description: `${PAYMENT_TYPE_NOTE}; SANDBOX events are not stored`,
      }),
    app_user_id: z
      .string()
      .optional()
      .meta({
        description: `the user as sent to trigger; with original_app_user_id and aliases, the first registered one is used. One of them is ${PAYMENT_TYPE_NOTE}`,
      }),
    original_app_user_id: z.string().optional(),
    aliases: z.array(z.unknown()).optional().meta({ description: 'the first 20 strings are looked up' }),
    transaction_id: z
      .union([z.string().max(256), z.number()])
      .nullable()
      .optional()
      .meta({
        description: 'the payment_id of a purchase or renewal; the payment a refund removes',
      }),
    price: price.meta({
      description: 'USD; negative only for a refund (a purchase with a negative price is 400); null when unknown',
    }),
    price_in_purchased_currency: price,
    currency: text(256).meta({ description: 'ISO 4217 code of the purchase' }),
    cancel_reason: text(256).meta({ description: 'CUSTOMER_SUPPORT marks a refund' }),
  }),
});

const nullableEnum = (values: readonly string[]) => z.enum(values as [string, ...string[]]).nullable();

const WEBHOOK_OPERATION: Operation = {
  method: 'post',
  path: '/webhook/revenuecat',
  summary:
    'RevenueCat webhook: each event that maps to a payment is stored as capture-payment stores one (registered users only, a payment_id once)',
  tag: 'connections',
  auth: 'revenueCatToken',
  body: webhookBodySchema,
  responses: {
    '200': {
      description:
        'every handled event, stored or not (RevenueCat retries any other status): data.result is stored, duplicate (a retry), unregistered (user not registered through trigger), sandbox, test, not_a_payment, currency (the amount cannot be given in the project currency) or refund_reversed',
      schema: envelope(
        z.looseObject({
          message: z.string(),
          result: z.enum([
            'stored',
            'duplicate',
            'unregistered',
            'sandbox',
            'test',
            'not_a_payment',
            'currency',
            'refund_reversed',
          ]),
          payment_type: nullableEnum(PAYMENT_TYPES),
          payment_status: nullableEnum(PAYMENT_STATUSES),
          removed: z
            .int()
            .min(0)
            .meta({ description: 'payments a refund removed (also a purchase whose refund came first)' }),
          reduced: z.int().min(0).meta({ description: 'payments a partial refund lowered (they still count once)' }),
          restored: z.int().min(0).meta({ description: 'payments a REFUND_REVERSED counted again' }),
        }),
      ),
    },
    '400':
      '`Invalid JSON body.`, `Request body must be a JSON object.`, `event must be an object.` or `event.<field> must be <rule>.`',
    '401': '`Unauthorized access.`: the Authorization header is missing or holds no current token of a project',
    '413': '`Request body too large.`: over BODY_LIMIT_V1_BYTES (256 KiB by default)',
    '415': UNSUPPORTED_MEDIA_TYPE,
    ...SERVER_FAILURES,
  },
};

export const REVENUECAT_OPERATIONS: Operation[] = [...CONNECTION_OPERATIONS, WEBHOOK_OPERATION];
