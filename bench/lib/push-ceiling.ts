// The `pushes` workload's ceiling and push count check: the daily pass's senders alone, on the
// same tokens, in the same batches and concurrency, without Postgres; and the fakes' counts by
// provider and outcome against what the seeded classes expect.
import type { PgDeps } from '../../src/deps.ts';
import { projectSenders } from '../../src/domain/uninstalls/project-senders.ts';
import { type PushTarget, providerOfToken } from '../../src/domain/uninstalls/push-sender.ts';
import type { PushFakeStats } from './push-fakes.ts';

/** Batches of up to `batch` per provider, in install order, as the pass forms them from its pages. */
function batchesOf(rows: readonly PushTarget[], batch: number): { provider: 'FCM' | 'APNS'; targets: PushTarget[] }[] {
  const out: { provider: 'FCM' | 'APNS'; targets: PushTarget[] }[] = [];
  const open = new Map<string, PushTarget[]>();
  for (const t of rows) {
    const provider = providerOfToken(t.token);
    let b = open.get(provider);
    if (!b) {
      b = [];
      open.set(provider, b);
      out.push({ provider, targets: b });
    }
    b.push(t);
    if (b.length >= batch) {
      open.delete(provider);
    }
  }
  return out;
}

/**
 * The ceiling: the pass's senders alone (made the same way, from the stored credentials) on the
 * project's first `n` tokens, in the pass's batches and concurrency; after a warm-up of 2,000 tokens
 * (OAuth exchange, JIT), as the pass is past its first batches for most of its run.
 */
export async function sendersAlone(
  deps: PgDeps,
  projectId: string,
  n: number,
  shape: { batch: number; inFlight: number },
): Promise<number> {
  const rows = await deps.sql`SELECT install_instance_id, push_token FROM installs
    WHERE project_id = ${projectId} AND push_token IS NOT NULL ORDER BY install_instance_id LIMIT ${n + 2_000}`;
  const targets = rows.map((r) => ({ installInstanceId: String(r.install_instance_id), token: String(r.push_token) }));
  const senders = await projectSenders(deps)(projectId);
  const sendAll = async (batches: ReturnType<typeof batchesOf>) => {
    let next = 0;
    const worker = async () => {
      while (next < batches.length) {
        const b = batches[next++];
        await senders[b?.provider ?? 'FCM']?.send(b?.targets ?? []);
      }
    };
    await Promise.all(Array.from({ length: shape.inFlight }, worker));
  };
  await sendAll(batchesOf(targets.slice(0, 2_000), shape.batch));
  const measured = targets.slice(2_000);
  const t0 = performance.now();
  await sendAll(batchesOf(measured, shape.batch));
  return measured.length / ((performance.now() - t0) / 1000);
}

/** Pushes that match the expectation by provider and outcome: each missing or extra push counts against. */
export function matchingPushes(got: PushFakeStats, want: PushFakeStats): { received: number; matching: number } {
  let received = 0;
  let off = 0;
  let sent = 0;
  for (const p of ['fcm', 'apns'] as const) {
    for (const o of ['delivered', 'gone', 'error'] as const) {
      received += got[p][o];
      sent += want[p][o];
      off += Math.abs(got[p][o] - want[p][o]);
    }
  }
  return { received, matching: sent - off };
}
