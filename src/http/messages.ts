// Every text the spec fixes, copied exactly (punctuation included), plus our own texts for cases
// the spec leaves open. Each one is asserted by a test.
const clip = (v: string): string => (v.length > 100 ? `${v.slice(0, 100)}…` : v);

export const MSG = {
  // auth (spec: four different 401 texts)
  unauthorized: 'Unauthorized access.',
  authFailed: 'Authentication failed.',
  serverKeyMissing: 'Server key missing!',
  serverKeyInvalid: 'Server key invalid!',
  rateLimited: 'Rate limit exceeded. Please try again later.',
  internalError: 'Internal server error',
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
  domainNotFound: 'Domain not found in project',
  storeListingIdsInvalid: 'store_listing_ids must be an array of non-empty strings!',
  storeListingsNotFound: (ids: string[]) => `Store listing(s) not found for this project: ${ids.join(', ')}`,
  storeListingSamePlatform: 'Cannot assign multiple store listings with the same platform to a campaign!',
  displayIdTaken: 'A campaign with this display ID already exists!',
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
  // SDK request signing (real-clients §2; texts are ours): 401 on every client endpoint
  sdkSignatureInvalid: 'Invalid request signature.',
  sdkSignatureRequired: 'Request signature required.',
  // get-attribution-result
  attributionLookupRequired: 'Either device_identifier or user_id is required.',
  attributionResultFound: 'Attribution result fetched successfully',
} as const;
