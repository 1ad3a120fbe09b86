// OpenAPI operations of the event, payment, push-token and integration routes (client and the
// server-side twins). Documentation schemas only: the parsers in http/parse read fields one by one
// (tolerant of real SDK bodies, exact texts per failure).
import { z } from 'zod';
import { PAYMENT_STATUSES, PAYMENT_TYPES } from '../domain/events/capture-payment.ts';
import type { Operation } from './openapi.ts';
import { CLIENT_ERRORS } from './openapi-client.ts';

const client = {
  token: z.string().meta({ description: 'project token' }),
  platform: z.string().optional(),
  install_instance_id: z.string(),
};
const userId = z.string().meta({ description: 'your user id, as sent to trigger' });
const eventFields = {
  event_name: z.string().min(1).max(255).meta({ description: 'stored exactly as sent' }),
  event_data: z
    .looseObject({ amount: z.number().optional().meta({ description: 'revenue when a number from 0 to 1e28' }) })
    .nullable()
    .optional(),
  event_id: z.string().max(128).optional().meta({ description: 'idempotency key: a repeat is ignored' }),
};
const paymentTypes = z.enum(PAYMENT_TYPES);
const paymentStatuses = z.enum(PAYMENT_STATUSES);
const paymentFields = {
  amount: z.number().min(0).max(1e28).meta({ description: 'exact decimal, at most 9 decimals (rounded half up)' }),
  payment_id: z.string().max(256).optional().meta({ description: 'a repeat is ignored; "" means none' }),
  type: paymentTypes.optional().meta({ description: 'default DEFAULT' }),
  status: paymentStatuses.optional().meta({ description: 'default PAYMENT_COMPLETED' }),
  event_data: z.looseObject({}).nullable().optional(),
};
const removeFields = {
  payment_id: z.string().optional().meta({ description: 'that payment; "" or absent: every payment of user_id' }),
  user_id: userId.optional(),
};
const SERVER_ERRORS = {
  '401': 'missing or invalid server key: `Unauthorized access.`',
  '429': '`Rate limit exceeded. Please try again later.` (per source IP or per server key); Retry-After: 1',
};
const NOT_STORED =
  '{msg, status: 200, data: {message}}: nothing stored (user not registered through trigger, or a repeated id)';

const clientOp = (path: string, summary: string, body: z.ZodType, responses: Record<string, string>): Operation => ({
  method: 'post',
  path: `/api/client/${path}`,
  summary,
  tag: 'client',
  auth: 'bodyToken',
  body,
  responses: { ...responses, ...CLIENT_ERRORS },
});

const serverOp = (path: string, summary: string, body: z.ZodType, responses: Record<string, string>): Operation => ({
  method: 'post',
  path: `/api/v1/${path}`,
  summary,
  tag: 'events',
  body,
  responses: { ...responses, ...SERVER_ERRORS },
});

export const COMMERCE_OPERATIONS: Operation[] = [
  clientOp(
    'capture-event',
    'Track a custom event (stored only for users registered through trigger)',
    z.looseObject({ ...client, ...eventFields, user_id: userId.optional() }),
    {
      '200': '{msg, status, data: {message}}: stored, not stored (user not registered) or duplicate event_id',
      '400': 'bad token, install_instance_id, event_name, event_data, event_id or user_id',
    },
  ),
  clientOp(
    'capture-payment',
    'Track revenue (users registered through trigger)',
    z.looseObject({ ...client, ...paymentFields, user_id: userId.optional() }),
    {
      '201': '{msg, status, data: {message}}: stored',
      '200': NOT_STORED,
      '400': 'bad token, install_instance_id, amount, type, status, payment_id or user_id',
    },
  ),
  clientOp(
    'remove-captured-payment',
    'Remove a captured payment (refund): revenue nets to zero',
    z.looseObject({ token: client.token, ...removeFields }),
    {
      '200': '{msg, status, data: {message, removed}}; removed 0 when nothing matched',
      '400': '`Either payment_id or user_id is required.`, bad token',
    },
  ),
  ...['update-push-token', 'updatePushToken'].map((path) =>
    clientOp(
      path,
      path === 'updatePushToken'
        ? 'Store the push token (legacy Android path)'
        : 'Store the device push token (uninstall tracking)',
      z.looseObject({ ...client, push_token: z.string().min(1).max(4096) }),
      {
        '200': '{msg, status, data: {message}}',
        '400': 'bad token, install_instance_id or push_token, unknown install',
      },
    ),
  ),
  clientOp(
    'integrations',
    'Send third-party ids (merged into the install)',
    z.looseObject({ ...client, integration_info: z.record(z.string().max(128), z.string().max(512)) }),
    {
      '200': '{msg, status: 200, data: {message}}',
      '400': 'integration_info not a map of strings, more than 100 keys, unknown install, bad token',
    },
  ),
  serverOp('capture-event', 'Track a custom event from your backend', z.object({ ...eventFields, user_id: userId }), {
    '201': '{msg: `Event capture request received!`, status: 201, data: null}',
    '200': NOT_STORED,
    '400': 'bad event_name, event_data, event_id or user_id',
  }),
  serverOp('capture-payment', 'Track revenue from your backend', z.object({ ...paymentFields, user_id: userId }), {
    '201': '{msg, status, data: {message}}: stored',
    '200': NOT_STORED,
    '400': 'bad amount, type, status, payment_id or user_id',
  }),
  serverOp('remove-payment', 'Remove payments (refund) from your backend', z.object(removeFields), {
    '200': '{msg, status, data: {message, removed}}',
    '400': 'no payment found, or neither payment_id nor user_id',
  }),
];
