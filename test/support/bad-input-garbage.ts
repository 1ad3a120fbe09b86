// JSON-RPC-shaped garbage for POST /mcp/<token> (mcp.test.ts) and RevenueCat-shaped garbage for
// POST /webhook/revenuecat (revenuecat.test.ts), as raw JSON text: each member of a message or an
// event is well formed, an edge value, one of the suite's bad literals, random JSON, or missing.
import fc from 'fast-check';
import type { Fixture } from './bad-input-routes.ts';
import { rcBody } from './bad-input-surfaces.ts';
import { badLiteral } from './bad-input-values.ts';

// ---- JSON-RPC-shaped garbage (mcp.test.ts) ----

const anyJson = fc.jsonValue({ maxDepth: 3 });
/** A value as raw JSON text: one of the suite's bad literals, or any JSON. */
const rawValue = fc.oneof(
  badLiteral,
  anyJson.map((v) => JSON.stringify(v)),
);

export const METHODS = [
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'notifications/initialized',
  'notifications/cancelled',
  'resources/list',
  'prompts/get',
  'logging/setLevel',
  'completion/complete',
  '__proto__',
  'constructor',
  'toString',
  'tools/call\u0000',
  'TOOLS/CALL',
  '',
];

export const TOOL_NAMES = [
  'get_project_info',
  'get_project_stats',
  'list_campaigns',
  'list_events',
  'lookup_attribution',
  'get_billing_usage',
];

/** Each tool's argument keys (tool-inputs.ts), so a call reaches the tool, not only its strict schema. */
const TOOL_ARGS: Record<string, string[]> = {
  get_project_info: [],
  get_project_stats: ['from', 'to'],
  list_campaigns: ['page', 'limit', 'filter', 'channel', 'domain', 'link'],
  list_events: ['from', 'to'],
  lookup_attribution: ['user_id', 'device_identifier', 'install_instance_id'],
  get_billing_usage: ['month', 'from', 'to'],
};

/** One member as raw JSON text, or nothing (the key left out, one time in two). */
const member = (key: string, value: fc.Arbitrary<string>) =>
  fc.option(
    value.map((v) => `${JSON.stringify(key)}:${v}`),
    { nil: undefined, freq: 2 },
  );

const objectOf = (members: fc.Arbitrary<string | undefined>[]) =>
  fc.tuple(...members).map((ms) => `{${ms.filter((m) => m !== undefined).join(',')}}`);

/** A value a tool argument may hold: plausible text, a bad literal or random JSON. */
const argValue = fc.oneof(
  fc
    .constantFrom('2024-01-01', '2024-02-30', '2030-12-31', '2025-13', '2025-03', 'ALL', 'META', '\\u0000', '')
    .map((v) => `"${v}"`),
  fc.constantFrom('1', '0', '-1', '1000', '1001', '1.5'),
  rawValue,
);

/** tools/call params: a known tool (or garbage) with its own keys, and `page` that only one takes. */
const toolCallParams = fc
  .constantFrom(...TOOL_NAMES)
  .chain((tool) =>
    objectOf([
      member(
        'name',
        fc.oneof({ weight: 4, arbitrary: fc.constant(JSON.stringify(tool)) }, { weight: 1, arbitrary: rawValue }),
      ),
      member(
        'arguments',
        fc.oneof(
          { weight: 5, arbitrary: objectOf([...(TOOL_ARGS[tool] ?? []), 'page'].map((k) => member(k, argValue))) },
          { weight: 1, arbitrary: rawValue },
        ),
      ),
      member('_meta', rawValue),
    ]),
  );

const rpcParams = (method: string) =>
  method === 'tools/call'
    ? fc.oneof({ weight: 5, arbitrary: toolCallParams }, { weight: 1, arbitrary: rawValue })
    : method === 'initialize'
      ? objectOf([
          member(
            'protocolVersion',
            fc.oneof(
              fc
                .constantFrom('2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '1999-01-01', '')
                .map((v) => JSON.stringify(v)),
              rawValue,
            ),
          ),
          member('capabilities', rawValue),
          member('clientInfo', rawValue),
        ])
      : rawValue;

const rpcId = fc.oneof(
  fc.constantFrom('1', '"a"', '0', '-1', 'null', '1.5', '9007199254740993', '1e309', '""', '{}', '[]', 'true'),
  fc.string({ maxLength: 300 }).map((s) => JSON.stringify(s)),
  fc.integer().map(String),
);

/** One JSON-RPC-shaped message as raw JSON text: each member well formed, garbage, or missing. */
export const rpcMessage: fc.Arbitrary<string> = fc
  .constantFrom(...METHODS)
  .chain((method) =>
    objectOf([
      member('jsonrpc', fc.oneof(fc.constant('"2.0"'), fc.constant('"2.0"'), rawValue)),
      member('id', rpcId),
      member('method', fc.oneof(fc.constant(JSON.stringify(method)), rawValue)),
      member('params', rpcParams(method)),
      member('result', rawValue),
      member('error', rawValue),
    ]),
  );

/** A body: one message, a batch of them (0 to 12), or raw garbage. */
export const rpcBody: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: rpcMessage },
  { weight: 2, arbitrary: fc.array(rpcMessage, { maxLength: 12 }).map((ms) => `[${ms.join(',')}]`) },
  { weight: 1, arbitrary: rawValue },
);

/** An MCP-Protocol-Version header value (header-safe text), or none. */
export const protocolHeader: fc.Arbitrary<string | undefined> = fc.option(
  fc.oneof(
    fc.constantFrom('2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2025-3-26', ' 2025-03-26 ', '', 'x'),
    fc.string({ unit: 'grapheme-ascii', maxLength: 40 }),
  ),
  { nil: undefined },
);

// ---- RevenueCat-shaped garbage (revenuecat.test.ts) ----

export const RC_TYPES = [
  'INITIAL_PURCHASE',
  'RENEWAL',
  'NON_RENEWING_PURCHASE',
  'UNCANCELLATION',
  'PRODUCT_CHANGE',
  'CANCELLATION',
  'BILLING_ISSUE',
  'TEST',
  'EXPIRATION',
  'TRANSFER',
  'SUBSCRIPTION_PAUSED',
  'REFUND_REVERSED',
  'initial_purchase',
  ' RENEWAL ',
  '__proto__',
  'constructor',
  'hasOwnProperty',
];

const RC_FIELDS = [
  'id',
  'environment',
  'app_user_id',
  'original_app_user_id',
  'aliases',
  'transaction_id',
  'price',
  'price_in_purchased_currency',
  'currency',
  'cancel_reason',
];

const PAYMENT_TYPES = RC_TYPES.slice(0, 7);
const uuidText = fc.uuid().map((u) => JSON.stringify(u));

/**
 * An event of a known or odd type whose fields are each good (fresh ids, so purchases store), an
 * edge value, a bad literal, random JSON or missing; one in four is a whole good payment event.
 */
export const rcEvent = (x: Fixture): fc.Arbitrary<string> => {
  const sample = rcBody(x).event as Record<string, unknown>;
  const good: Record<string, fc.Arbitrary<string>> = {
    id: uuidText,
    transaction_id: uuidText,
    aliases: fc.constant(JSON.stringify(sample.aliases)),
  };
  const goodOf = (k: string) => good[k] ?? fc.constant(JSON.stringify(sample[k]));
  const edge: Record<string, fc.Arbitrary<string>> = {
    environment: fc.constantFrom('"SANDBOX"', '"production"', '""'),
    app_user_id: fc.constantFrom('"\\u0000"', '"  "', '12', '9007199254740993', '"$RCAnonymousID:x"'),
    aliases: fc.oneof(
      fc.array(fc.oneof(goodOf('app_user_id'), rawValue), { maxLength: 30 }).map((a) => `[${a.join(',')}]`),
      fc.constant(`[${'"a",'.repeat(5000)}"b"]`),
    ),
    transaction_id: fc.constantFrom('100000000000042', '9007199254740993', '-1', '"\\u0000"', '""'),
    price: fc.constantFrom('-9.99', '0', '-0', '1e20', '1e21', '1e309', '"9.99"', '0.000000000000000001'),
    currency: fc.constantFrom('"usd"', '"EUR"', '"\\u0000"', '""'),
    cancel_reason: fc.constantFrom('"CUSTOMER_SUPPORT"', '"UNSUBSCRIBE"', '"\\u0000"'),
  };
  const members = RC_FIELDS.map((k) =>
    fc.option(
      fc
        .oneof(
          { weight: 5, arbitrary: goodOf(k) },
          { weight: 2, arbitrary: edge[k] ?? goodOf(k) },
          { weight: 1, arbitrary: rawValue },
        )
        .map((v) => `${JSON.stringify(k)}:${v}`),
      { nil: undefined, freq: 6 },
    ),
  );
  const type = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...RC_TYPES).map((t) => JSON.stringify(t)) },
    { weight: 1, arbitrary: rawValue },
  );
  const fuzzed = fc
    .tuple(type, objectOf(members))
    .map(([t, rest]) => `{"type":${t}${rest === '{}' ? '}' : `,${rest.slice(1)}`}`);
  const whole = fc
    .record({ type: fc.constantFrom(...PAYMENT_TYPES), id: fc.uuid(), transaction_id: fc.uuid() })
    .map((e) => JSON.stringify(rcBody(x, e).event));
  return fc.oneof({ weight: 3, arbitrary: fuzzed }, { weight: 1, arbitrary: whole });
};
