// Every text the spec fixes, copied exactly (punctuation included), plus our own texts for cases
// the spec leaves open. Each one is asserted by a test.
import { cutChars } from '../lib/storable.ts';
import { charLength } from '../lib/validate.ts';

// An echoed value is cut at 100 characters, never inside an emoji (a lone surrogate in JSON).
const clip = (v: string): string => (charLength(v) > 100 ? `${cutChars(v, 100)}…` : v);

export const MSG = {
  // auth (spec: four different 401 texts)
  unauthorized: 'Unauthorized access.',
  authFailed: 'Authentication failed.',
  serverKeyMissing: 'Server key missing!',
  serverKeyInvalid: 'Server key invalid!',
  rateLimited: 'Rate limit exceeded. Please try again later.',
  internalError: 'Internal server error',
  // Ours (not in the spec): Postgres unreachable or restarting; the request can be retried as is.
  storeUnavailable: 'Service temporarily unavailable. Please retry later.',
  // Ours: service mode without SECRETS_KEY cannot store or read connection credentials.
  secretsNotConfigured: 'Secrets are not configured on this server (SECRETS_KEY). Ask its operator.',
  routeNotFound: 'Route not found.',
  invalidJsonBody: 'Invalid JSON body.',
  bodyNotObject: 'Request body must be a JSON object.',
  bodyTooLarge: 'Request body too large.',
  unsupportedMediaType: 'Unsupported content type. Send application/json.',
  // pagination (spec: 422, texts name the offending value)
  invalidPage: (v: string) => `Invalid page number '${clip(v)}'. Page must be a positive integer.`,
  invalidLimit: (v: string, max: number) =>
    `Invalid limit '${clip(v)}'. Limit must be an integer between 1 and ${max}.`,
  limitExceeds: (v: string, max: number) => `Limit '${clip(v)}' exceeds the maximum of ${max}.`,
  // list campaigns
  invalidRequestParameters: 'Invalid request parameters.',
  invalidDomain: (d: string) => `Invalid domain '${clip(d)}'. Domain not found for this project.`,
  invalidChannel: (c: string) => `Invalid channel '${clip(c)}'. Channel not found.`,
  invalidFilter: (f: string) => `Invalid filter '${clip(f)}'. Use ACTIVE, INACTIVE or ALL.`,
  campaignsListed: (total: number, scope: string, page: number, pages: number) =>
    `Successfully retrieved ${total} campaigns (${scope}). Showing page ${page} of ${pages}.`,
  // create campaign
  campaignCreated: 'Campaign created successfully!',
  nameRequired: 'Campaign name is required!',
  nameTooLong: (max: number) => `Campaign name must be at most ${max} characters!`,
  // Ours (not in the spec): a control character inside a name (after the trim).
  nameControlChars: 'Campaign name must not contain control characters!',
  domainNotFound: 'Domain not found in project',
  storeListingIdsInvalid: 'store_listing_ids must be an array of non-empty strings!',
  // Ours: the spec sets no count for store_listing_ids (at most one per platform is ever kept).
  storeListingIdsTooMany: (max: number) => `store_listing_ids may name at most ${max} store listings!`,
  storeListingsNotFound: (ids: string[]) => `Store listing(s) not found for this project: ${ids.join(', ')}`,
  storeListingSamePlatform: 'Cannot assign multiple store listings with the same platform to a campaign!',
  displayIdTaken: 'A campaign with this display ID already exists!',
  displayIdReserved: 'This display ID is reserved by the service; choose another!',
  customDisplayIdInvalid:
    'custom_display_id must be 1 to 64 characters: letters, digits, hyphens and underscores only!',
  isShortlinkNotBoolean: 'is_shortlink must be a boolean!',
  invalidUrlField: (field: string) => `${field} must be a valid http(s) URL!`,
  invalidDeeplink: 'deeplink must be a valid http(s) URL or app link!',
  fieldNotString: (field: string) => `${field} must be a string!`,
  adNetworkInvalid: 'ad_network must be a network code of letters, digits, spaces or underscores!',
  // edit / delete
  campaignUpdated: 'Campaign updated successfully!',
  campaignDeleted: 'Campaign deleted successfully!',
  displayIdRequired: 'Campaign display ID is required!',
  needNameOrActive: 'At least one field (name or active) is required for update!',
  nameEmpty: 'Campaign name cannot be empty!',
  activeNotBoolean: 'Active field must be a boolean!',
  campaignNotFound: 'Campaign not found!',
  // user data deletion (DELETE /api/v1/users/:user_id; GDPR, not in the spec: texts are ours)
  userDeleted: 'User data deleted successfully!',
  userNotFound: 'User not found!',
  userIdRequired: 'User ID is required!',
  // client endpoints (spec: a bad token is 400, 401 on attribution-data; texts are ours)
  clientTokenInvalid: 'Invalid or missing project token.',
  installIdRequired: 'install_instance_id must be a non-empty string of at most 128 characters.',
  fieldMustBeString: (field: string) => `${field} must be a string.`,
  fieldMustBeObject: (field: string) => `${field} must be an object.`,
  deeplinkUrlRequired: 'deeplink_url must be a non-empty string.',
  installNotFound: 'Install not found. Call init first.',
  initAccepted: 'Install event accepted for processing',
  attributionFound: 'Attribution data fetched successfully',
  attributionPending: 'Attribution is still being processed. Poll again shortly.',
  deeplinkHandled: 'Deeplink processed successfully',
  ingestBacklogFull: 'Too much data is waiting to be stored. Please retry later.',
  // capture-event, capture-payment, remove-captured-payment (spec Rules 1-6; texts are ours)
  userIdInvalid: 'user_id must be a string of at most 256 characters.',
  eventNameInvalid: 'event_name must be a non-empty string of at most 255 characters.',
  eventIdInvalid: 'event_id must be a string or number of at most 128 characters.',
  eventCaptured: 'Event captured successfully',
  eventNotStored: 'Event not stored: the user is not registered. Call trigger first.',
  eventDuplicate: 'Event already captured: duplicate event_id ignored.',
  amountInvalid: 'amount must be a number from 0 to 1e20.',
  paymentTypeInvalid:
    'type must be one of FIRST_PAYMENT, SECOND_PAYMENT, ONE_TIME, RECURRING, WALLET_TOPUP, FUNDS_WITHDRAWAL, SUBSCRIPTION_CREATED, SUBSCRIPTION_RENEWED, SUBSCRIPTION_CANCELLED, SUBSCRIPTION_REFUNDED, SUBSCRIPTION_BILLING_ISSUE, DEFAULT.',
  paymentStatusInvalid:
    'status must be one of PAYMENT_INITIATED, PAYMENT_COMPLETED, PAYMENT_FAILED, PAYMENT_CANCELLED.',
  paymentIdInvalid: 'payment_id must be a string or number of at most 256 characters.',
  paymentCaptured: 'Payment captured successfully',
  paymentNotStored: 'Payment not stored: the user is not registered. Call trigger first.',
  paymentDuplicate: 'Payment already captured: duplicate payment_id ignored.',
  paymentOrUserRequired: 'Either payment_id or user_id is required.',
  paymentsRemoved: (n: number) => (n === 1 ? 'Removed 1 payment.' : `Removed ${n} payments.`),
  noPaymentRemoved: 'No matching payment found; nothing was removed.',
  // server-side twins /api/v1/capture-event, capture-payment, remove-payment (docs; real-clients §7)
  eventCaptureReceived: 'Event capture request received!',
  serverUserIdRequired: 'user_id must be a non-empty string of at most 256 characters.',
  // update-push-token, integrations (texts are ours)
  pushTokenInvalid: 'push_token must be a non-empty string of at most 4096 characters.',
  pushTokenSaved: 'Push token updated successfully',
  integrationInfoInvalid:
    'integration_info must be an object of string values (keys up to 128 and values up to 512 characters).',
  integrationInfoTooManyKeys: 'integration_info may hold at most 100 keys.',
  integrationsSaved: 'Integration data saved successfully',
  // SDK request signing (real-clients §2; texts are ours): 401 on every client endpoint
  sdkSignatureInvalid: 'Invalid request signature.',
  sdkSignatureRequired: 'Request signature required.',
  // get-attribution-result
  attributionLookupRequired: 'Either device_identifier or user_id is required.',
  attributionResultFound: 'Attribution result fetched successfully',
  // trigger, set-user-data, customer-user-id (texts are ours)
  userDataIdRequired: 'user_data.id must be a non-empty string of at most 256 characters.',
  customerUserIdRequired: 'user_id must be a non-empty string of at most 256 characters.',
  userRegistered: 'User registered successfully',
  userIdentified: 'User already registered; details updated',
  userDataUpdated: 'User data updated successfully',
  userDataNoUser: 'No registered user found for this request; nothing was updated. Call trigger first.',
  customerUserIdSet: 'Customer user id set successfully',
  // attributed-users (spec texts, plus the list message of ours)
  requiredParameterMissing: 'Required parameter missing.',
  invalidTimezone: 'Invalid timezone format.',
  invalidTimestamp: 'Invalid timestamp format.',
  resourceNotFound: 'Resource not found.',
  attributedUsersListed: (total: number, page: number, pages: number) =>
    `Successfully retrieved ${total} attributed users. Showing page ${page} of ${pages}.`,
  // reporting (spec: msg and 402 payment_link; the 400 texts are ours)
  campaignsFetched: 'Campaigns fetched successfully',
  billingSuspended: 'Billing account suspended. Complete the payment at payment_link to restore reporting.',
  invalidReportDate: (field: string, v: string) =>
    `Invalid ${field} '${clip(v)}'. Use a calendar date in the form YYYY-MM-DD.`,
  reportDatesReversed: "'from' must not be after 'to'.",
  invalidReportActive: (v: string) => `Invalid active '${clip(v)}'. Use true or false.`,
  invalidReportPlatform: (v: string) => `Invalid platform '${clip(v)}'. Use ios or android.`,
  invalidReportView: (v: string) => `Invalid view '${clip(v)}'. Use user_acquisition or retargeting.`,
  invalidSortField: (v: string) =>
    `Invalid sort_field '${clip(v)}'. Use clicks, installs, signups, revenue, spend, created_at, uninstalls, conversion, suspicious_installs or roas.`,
  invalidSortOrder: (v: string) => `Invalid sort_order '${clip(v)}'. Use ascending or descending.`,
  invalidMetaAccountId: (v: string) => `Invalid meta_account_id '${clip(v)}'. Use a positive integer.`,
  invalidActiveUsers: (v: string) => `Invalid active_users '${clip(v)}'. Use a whole number of days from 1 to 365.`,
  searchTooLong: (max: number) => `search must be at most ${max} characters.`,
  tooManyEventNames: (field: string, max: number) => `${field} may list at most ${max} names.`,
  repeatedReportParameter: (field: string) => `${field} must be given at most once.`,
  // audience segment exports (GET /api/v1/audiences/export; product notes "Remarketing"; texts are ours)
  audienceActionRequired: 'Give one of event or payment_type.',
  audienceActionBoth: 'Give either event or payment_type, not both.',
  audienceEventTooLong: (max: number) => `event must be at most ${max} characters.`,
  audienceInvalidPaymentType: (v: string) =>
    `Invalid payment_type '${clip(v)}'. Use any or a payment type (FIRST_PAYMENT, ONE_TIME, DEFAULT, …).`,
  audienceDateRequired: (field: string) => `${field} is required: a calendar date in the form YYYY-MM-DD.`,
  audienceFormatRequired: 'format is required: meta, google, google_device_ids or plain.',
  audienceInvalidFormat: (v: string) => `Invalid format '${clip(v)}'. Use meta, google, google_device_ids or plain.`,
  audienceInvalidInactiveDays: (v: string, max: number) =>
    `Invalid inactive_days '${clip(v)}'. Use a whole number of days from 1 to ${max}.`,
  audienceInvalidInactiveBy: (v: string) => `Invalid inactive_by '${clip(v)}'. Use app_open or action.`,
  audienceInactiveByWithoutDays: 'inactive_by needs inactive_days.',
  audienceInvalidCountryCode: (v: string) =>
    `Invalid phone_country_code '${clip(v)}'. Use the 1 to 3 digits of a calling code, such as 1 or 91.`,
  // MCP server (/mcp/<token>; product-notes "MCP"; the envelope texts are ours, the JSON-RPC error
  // messages are JSON-RPC 2.0's own names for its codes)
  mcpTokenInvalid: 'MCP token invalid or revoked.',
  mcpOriginForbidden: 'Origin not allowed for the MCP endpoint.',
  mcpPostOnly: 'Method not allowed. POST JSON-RPC messages to this MCP endpoint; it opens no event stream.',
  rpcParseError: 'Parse error',
  rpcInvalidRequest: 'Invalid Request',
  rpcMethodNotFound: 'Method not found',
  rpcInvalidParams: 'Invalid params',
  rpcBatchNotAllowed: (version: string) =>
    `Invalid Request: protocol version ${clip(version)} takes one JSON-RPC message per POST, not a batch.`,
  rpcInitializeInBatch: 'Invalid Request: initialize must not be part of a batch.',
  rpcUnsupportedVersion: (version: string) => `Bad Request: unsupported MCP-Protocol-Version '${clip(version)}'.`,
  rpcUnknownTool: (name: string) => `Unknown tool: ${clip(name)}`,
  mcpToolArguments: (problems: string) => `Invalid arguments: ${clip(problems)}`,
  mcpLookupRequired: 'Give one of user_id, device_identifier or install_instance_id.',
  mcpBillingPeriod: 'Give either month (YYYY-MM) or from and to (YYYY-MM-DD), not both.',
  mcpInvalidMonth: (v: string) => `Invalid month '${clip(v)}'. Use YYYY-MM.`,
  // spend (texts are ours)
  spendRowsInvalid: 'rows must be an array of 1 to 10,000 spend rows.',
  spendSaved: (accepted: number, unchanged: number, rejected: number) =>
    `Spend saved: ${accepted} accepted, ${unchanged} unchanged, ${rejected} rejected.`,
  // SKAN conversion schema (texts are ours)
  skanSchemaInvalid: (problem: string) => `Invalid SKAN schema: ${clip(problem)}`,
  skanSchemaSaved: (version: number) => `SKAN schema saved as version ${version}.`,
  skanSchemaFound: 'SKAN schema found.',
  skanSchemaNotSet: 'No SKAN schema is set for this project.',
  // outgoing connections (texts are ours)
  connectionInvalid: (problem: string) => `Invalid connection: ${clip(problem)}`,
  metaConnectionSaved: 'Meta connection saved.',
  mappingsInvalid: 'mappings must be an array of 1 to 100 objects {kind, name, to}.',
  mappingInvalid: (index: number, problem: string) => `Invalid mapping at index ${index}: ${clip(problem)}`,
  mappingsSaved: (n: number) => `${n} event mapping(s) saved.`,
  // RevenueCat connection and inbound webhook (product notes "RevenueCat"; texts are ours)
  revenueCatTokenCreated: 'RevenueCat authorization token created. Paste it into the webhook settings in RevenueCat.',
  revenueCatTokenRotated:
    'RevenueCat authorization token rotated. Paste it into the webhook settings in RevenueCat; the previous token no longer works.',
  revenueCatConnected: 'RevenueCat authorization token is set.',
  revenueCatNotConnected: 'No RevenueCat authorization token is set for this project.',
  revenueCatTokenRemoved: 'RevenueCat authorization token removed.',
  revenueCatNothingRemoved: 'No RevenueCat authorization token was set; nothing was removed.',
  // analytics connections: Braze, Mixpanel, Amplitude, PostHog (texts are ours; the name as the vendor writes it)
  analyticsConnectionSaved: (vendor: string) => `${vendor} connection saved.`,
  analyticsConnected: (vendor: string) => `${vendor} connection is set.`,
  analyticsNotConnected: (vendor: string) => `No ${vendor} connection is set for this project.`,
  analyticsConnectionRemoved: (vendor: string) => `${vendor} connection removed.`,
  analyticsNothingRemoved: (vendor: string) => `No ${vendor} connection was set; nothing was removed.`,
  revenueCatEventRequired: 'event must be an object.',
  revenueCatFieldInvalid: (field: string, rule: string) => `event.${field} must be ${rule}.`,
  revenueCatRefundCaptured: 'Refund captured successfully',
  revenueCatRefundReversed: 'Refund reversed: the refunded payment counts again.',
  revenueCatNothingToReverse: 'Refund reversed: no refunded payment was found; nothing was restored.',
  revenueCatSandbox: 'Event not stored: sandbox purchases are not counted.',
  revenueCatTest: 'Test event received; nothing was stored.',
  revenueCatNotAPayment: (type: string) => `Event not stored: ${clip(type)} events are not payments.`,
  revenueCatCurrency: (currency: string) =>
    `Event not stored: its amount cannot be given in the project currency ${clip(currency)}.`,
  // POST /web/ingest, the Web SDK (not in the spec: ours).
  webEventCaptured: 'Web event captured successfully',
  webEventDuplicate: 'Web event already captured: duplicate event_id ignored.',
  webEventTypeInvalid: 'event_type must be a non-empty string of at most 64 characters.',
  webFieldMustBeNumber: (field: string) => `${field} must be a number.`,
  webSealedPayload:
    'Encrypted Web SDK payloads (lrv envelopes) are not supported by this server: it holds no private key to open them. Use a Web SDK build without publicKey / keyId.',
} as const;
