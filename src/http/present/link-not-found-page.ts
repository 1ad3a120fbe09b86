// What a person sees for a link that leads nowhere (unknown host or campaign, deleted campaign, or
// no stored target for their device). Plain HTML: the visitor is in a browser, not an API client.
export const LINK_NOT_FOUND_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>Link not found</title></head>
<body><h1>Link not found</h1><p>This link does not exist or is no longer available.</p></body></html>`;
