// Text as Postgres can store it: text and jsonb refuse NUL, and jsonb refuses a lone surrogate, so
// NUL is dropped and a lone surrogate becomes U+FFFD. Client bodies get it (parse/client/common.ts),
// and so does text the domain compares with what clients stored (SKAN schema event names).
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function storable(s: string): string {
  return s.replaceAll('\u0000', '').replace(LONE_SURROGATE, '\ufffd');
}
