// A row already encoded as one JSON object (a fact as the Postgres outbox holds it). The client's
// JSON handling sends its text as it is, so the fact writer neither parses a fact nor encodes it
// again on its way to ClickHouse (both were a fifth of the writer's CPU per row).
export class EncodedRow {
  constructor(readonly json: string) {}
}

/** The clients' JSON handling (createClient's `json`): EncodedRow as is, anything else stringified. */
export const JSON_HANDLING = {
  parse: JSON.parse,
  stringify: (value: unknown): string => (value instanceof EncodedRow ? value.json : JSON.stringify(value)),
};
