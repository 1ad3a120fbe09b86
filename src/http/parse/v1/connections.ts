// Bodies of PUT /api/v1/connections/meta and PUT /api/v1/connections/meta/mappings. The rules are
// the domain's (checkMetaConnection, checkMapping), so the CLI and the API refuse the same input.
import { checkMapping, type MappingInput } from '../../../domain/deliveries/map-event.ts';
import { checkMetaConnection, type MetaConnectionInput } from '../../../domain/deliveries/set-meta-connection.ts';
import { idTextOfNumber } from '../../../lib/json-numbers.ts';
import type { SourceKind } from '../../../store/postgres/connections.ts';
import { ApiError } from '../../errors.ts';
import { MSG } from '../../messages.ts';
import { asRecord } from '../common.ts';

const MAX_MAPPINGS = 100;

export function parseMetaConnection(body: unknown): MetaConnectionInput {
  const b = asRecord(body);
  // A number past 2^53 arrives rounded: it would name another dataset (checked as no digits: '').
  const datasetId = typeof b.dataset_id === 'number' ? (idTextOfNumber(b.dataset_id) ?? '') : b.dataset_id;
  if (typeof datasetId !== 'string' || typeof b.access_token !== 'string') {
    throw new ApiError(400, MSG.connectionInvalid('dataset_id and access_token are required strings'));
  }
  if (typeof b.active !== 'boolean') {
    throw new ApiError(400, MSG.connectionInvalid('active must be a boolean'));
  }
  if (b.graph_version !== undefined && b.graph_version !== null && typeof b.graph_version !== 'string') {
    throw new ApiError(400, MSG.connectionInvalid('graph_version must be a string'));
  }
  const input = {
    datasetId: datasetId.trim(),
    accessToken: b.access_token.trim(),
    graphVersion: (b.graph_version as string | null | undefined) ?? null,
    active: b.active,
  };
  const problem = checkMetaConnection(input);
  if (problem) {
    throw new ApiError(400, MSG.connectionInvalid(problem));
  }
  return input;
}

export function parseMappings(body: unknown): MappingInput[] {
  const list = asRecord(body).mappings;
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_MAPPINGS) {
    throw new ApiError(400, MSG.mappingsInvalid);
  }
  return list.map((item, i) => {
    const m = asRecord(item);
    const input = {
      kind: String(m.kind ?? '') as SourceKind,
      name: typeof m.name === 'string' ? m.name : '',
      to: String(m.to ?? ''),
    };
    const problem = checkMapping(input);
    if (problem) {
      throw new ApiError(400, MSG.mappingInvalid(i, problem));
    }
    return input;
  });
}
