// The SQL offset of a list page. Any positive page is valid, however large (spec): capped, the
// offset stays an exact bigint for Postgres (an uncapped 1e23 is sent as '1e+23' and fails) and is
// still past the end of any list.
export function pageOffset(page: number, limit: number): number {
  return Math.min((page - 1) * limit, Number.MAX_SAFE_INTEGER);
}
