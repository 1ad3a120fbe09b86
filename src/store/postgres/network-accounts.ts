// Ad-network accounts of a project (the reporting row's network_account, channel filters).
import type { Sql } from './pool.ts';

export type NetworkAccount = {
  id: number;
  projectId: string;
  network: string;
  name: string;
  email: string;
  status: string;
  capiConfigured: boolean;
};
type Row = {
  id: number;
  project_id: string;
  network: string;
  name: string;
  email: string;
  status: string;
  capi_configured: boolean;
};
const toAccount = (r: Row): NetworkAccount => ({
  id: r.id,
  projectId: r.project_id,
  network: r.network,
  name: r.name,
  email: r.email,
  status: r.status,
  capiConfigured: r.capi_configured,
});

export async function insertNetworkAccount(
  sql: Sql,
  a: Omit<NetworkAccount, 'id' | 'capiConfigured'>,
): Promise<NetworkAccount> {
  const [row] = await sql<Row[]>`
    INSERT INTO network_accounts (project_id, network, name, email, status)
    VALUES (${a.projectId}, ${a.network}, ${a.name}, ${a.email}, ${a.status}) RETURNING *`;
  if (!row) {
    throw new Error('insert into network_accounts returned no row');
  }
  return toAccount(row);
}

export async function listNetworkAccounts(sql: Sql, projectId: string): Promise<NetworkAccount[]> {
  const rows = await sql<Row[]>`SELECT * FROM network_accounts WHERE project_id = ${projectId} ORDER BY id`;
  return rows.map(toAccount);
}
