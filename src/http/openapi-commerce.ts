// OpenAPI operations of the event, payment, push-token and integration routes (client and the
// server-side twins). Documentation schemas only: the parsers in http/parse read fields one by one
// (tolerant of real SDK bodies, exact texts per failure).
import { z } from 'zod';
import { PAYMENT_STATUSES, PAYMENT_TYPES } from '../domain/events/capture-payment.ts';
import { MAX_AMOUNT } from '../lib/money.ts';
import type { Operation, Response } from './openapi.ts';
import { CLIENT_ERRORS, idNumber } from './openapi-client.ts';
import { envelope, messageData, removedData, v1Errors } from './openapi-responses.ts';
import { clientCommonDoc } from './parse/client/schemas.ts';
import { NOT_BLANK, trimmedText } from './parse/doc-patterns.ts';

const client = clientCommonDoc;
/** ids.ts optionalUserId: blank or null is none. */
const userId = z.union([z.string().regex(new RegExp(trimmedText(0, 256, { noNul: true }))), idNumber, z.null()]).meta({
  description:
    'your user id, as sent to trigger: trimmed, then at most 256 characters without NUL (blank or null: none); a number is taken as its text (a whole number past 2^53 is refused: it arrives rounded)',
});
/** The server twins' user_id (readUserIdValue): required, not blank. */
const serverUserId = z.union([z.string().regex(new RegExp(trimmedText(1, 256, { noNul: true }))), idNumber]).meta({
  description:
    'your user id, as sent to trigger: trimmed, then 1 to 256 characters without NUL; a number is taken as its text (a whole number past 2^53 is refused: it arrives rounded)',
});
/** ids.ts optionalId: a string of at most `max` characters or a number (its text); "" or null: none. */
const optionalId = (max: number, description: string) =>
  z
    .union([z.string().max(max), idNumber, z.null()])
    .optional()
    .meta({
      description: `${description}; at most ${max} characters, a number is taken as its text (a whole number past 2^53 is refused: it arrives rounded); "" or null: none`,
    });
const eventFields = {
  event_name: z
    .string()
    .max(255)
    .regex(new RegExp(NOT_BLANK))
    .meta({ description: 'stored exactly as sent; at most 255 characters, not blank' }),
  event_data: z
    .looseObject({
      amount: z
        .unknown()
        .optional()
        .meta({ description: `revenue when a JSON number from 0 to ${MAX_AMOUNT}` }),
    })
    .nullable()
    .optional()
    .meta({ description: 'an object (kept, capped like device_data) or null' }),
  event_id: optionalId(128, 'idempotency key: a repeat is ignored'),
};
/** capture-payment's type and status: exact case; absent, null or "" take the default. */
const paymentEnum = (values: readonly string[], fallback: string) =>
  z
    .union([z.enum(values as [string, ...string[]]), z.literal(''), z.null()])
    .optional()
    .meta({ description: `default ${fallback} (also for null or "")` });
const paymentFields = {
  amount: z
    .number()
    .min(0)
    .max(MAX_AMOUNT)
    .meta({
      description: `a JSON number from 0 to ${MAX_AMOUNT} (not a string); more than 9 decimals are rounded to 9`,
    }),
  payment_id: optionalId(256, 'a repeat is ignored'),
  type: paymentEnum(PAYMENT_TYPES, 'DEFAULT'),
  status: paymentEnum(PAYMENT_STATUSES, 'PAYMENT_COMPLETED'),
  event_data: z
    .unknown()
    .optional()
    .meta({ description: 'an object of commerce fields forwarded with a Purchase (README); anything else is ignored' }),
};
const removeFields = {
  payment_id: optionalId(256, 'that payment; none: every payment of user_id'),
  user_id: userId.optional(),
};
/** remove-captured-payment / remove-payment: a payment_id or a user_id that is not "none". */
const PAYMENT_OR_USER = {
  anyOf: [
    {
      required: ['payment_id'],
      properties: { payment_id: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'number' }] } },
    },
    {
      required: ['user_id'],
      properties: { user_id: { anyOf: [{ type: 'string', pattern: '\\S' }, { type: 'number' }] } },
    },
  ],
};
const NOT_STORED =
  'nothing stored: `Payment not stored: the user is not registered. Call trigger first.` or `Payment already captured: duplicate payment_id ignored.`';

const clientOp = (path: string, summary: string, body: z.ZodType, responses: Record<string, Response>): Operation => ({
  method: 'post',
  path: `/api/client/${path}`,
  summary,
  tag: 'client',
  auth: 'bodyToken',
  body,
  responses: { ...CLIENT_ERRORS, ...responses },
});

const serverOp = (path: string, summary: string, body: z.ZodType, responses: Record<string, Response>): Operation => ({
  method: 'post',
  path: `/api/v1/${path}`,
  summary,
  tag: 'events',
  body,
  responses: { ...v1Errors({ auth401: 'Unauthorized access.', body: true }), ...responses },
});

const EVENT_MESSAGES =
  '`Event captured successfully`, `Event not stored: the user is not registered. Call trigger first.` or `Event already captured: duplicate event_id ignored.`';
const integrationInfo = z.record(z.string().min(1).max(128), z.string().max(512)).meta({
  maxProperties: 100,
  description:
    'integration id names (1 to 128 characters, not __proto__) to string values of at most 512 characters; at most 100 keys',
});

export const COMMERCE_OPERATIONS: Operation[] = [
  clientOp(
    'capture-event',
    'Track a custom event (stored only for users registered through trigger)',
    z.looseObject({ ...client, ...eventFields, user_id: userId.optional() }),
    {
      '200': { description: EVENT_MESSAGES, schema: envelope(messageData(true)) },
      '400': 'bad token, install_instance_id, event_name, event_data, event_id or user_id',
    },
  ),
  clientOp(
    'capture-payment',
    'Track revenue (users registered through trigger)',
    z.looseObject({ ...client, ...paymentFields, user_id: userId.optional() }),
    {
      '201': { description: '`Payment captured successfully`', schema: envelope(messageData(true)) },
      '200': { description: NOT_STORED, schema: envelope(messageData(true)) },
      '400': 'bad token, install_instance_id, amount, type, status, payment_id or user_id',
    },
  ),
  clientOp(
    'remove-captured-payment',
    'Remove a captured payment (refund): revenue nets to zero',
    z.looseObject({ token: client.token, ...removeFields }).meta(PAYMENT_OR_USER),
    {
      '200': {
        description: '`Removed <n> payment(s).`; removed 0 when nothing matched',
        schema: envelope(removedData),
      },
      '400': '`Either payment_id or user_id is required.`, bad token, payment_id or user_id',
    },
  ),
  ...['update-push-token', 'updatePushToken'].map((path) =>
    clientOp(
      path,
      path === 'updatePushToken'
        ? 'Store the push token (legacy Android path)'
        : 'Store the device push token (uninstall tracking)',
      z.looseObject({
        ...client,
        push_token: z
          .string()
          .regex(new RegExp(trimmedText(1, 4096, { noNul: true })))
          .meta({ description: 'trimmed, then 1 to 4096 characters without NUL' }),
      }),
      {
        '200': { description: '`Push token updated successfully`', schema: envelope(messageData()) },
        '400': 'bad token, install_instance_id or push_token, unknown install',
      },
    ),
  ),
  clientOp(
    'integrations',
    'Send third-party ids (merged into the install)',
    z.looseObject({ ...client, integration_info: integrationInfo }),
    {
      '200': { description: '`Integration data saved successfully`', schema: envelope(messageData()) },
      '400': 'integration_info not a map of strings, more than 100 keys, unknown install, bad token',
    },
  ),
  serverOp(
    'capture-event',
    'Track a custom event from your backend',
    z.object({ ...eventFields, user_id: serverUserId }),
    {
      '201': { description: '`Event capture request received!`; data null', schema: envelope(z.null()) },
      '200': {
        description:
          'nothing stored: `Event not stored: the user is not registered. Call trigger first.` or `Event already captured: duplicate event_id ignored.`; data null',
        schema: envelope(z.null()),
      },
      '400': 'bad event_name, event_data, event_id or user_id',
    },
  ),
  serverOp(
    'capture-payment',
    'Track revenue from your backend',
    z.object({ ...paymentFields, user_id: serverUserId }),
    {
      '201': { description: '`Payment captured successfully`', schema: envelope(messageData()) },
      '200': { description: NOT_STORED, schema: envelope(messageData()) },
      '400': 'bad amount, type, status, payment_id or user_id',
    },
  ),
  serverOp(
    'remove-payment',
    'Remove payments (refund) from your backend',
    z.object(removeFields).meta(PAYMENT_OR_USER),
    {
      '200': { description: '`Removed <n> payment(s).`', schema: envelope(removedData) },
      '400': '`No matching payment found; nothing was removed.`, or neither payment_id nor user_id',
    },
  ),
];
