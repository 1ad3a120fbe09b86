// The bench's fake Meta Conversions API: test/support/fake-capi.ts's server (it checks what Meta
// checks), started once in the bench process before the service, whose META_GRAPH_BASE_URL points
// at it. Only the `deliveries` workload connects a project to it; it costs nothing otherwise.
import { FakeCapi } from '../../test/support/fake-capi.ts';

let sink: Promise<FakeCapi> | undefined;

export function capiSink(): Promise<FakeCapi> {
  sink ??= (async () => {
    const fake = new FakeCapi();
    await fake.start();
    return fake;
  })();
  return sink;
}

/** Stops the fake if it was started (end of the run). */
export async function stopCapiSink(): Promise<void> {
  const s = sink;
  sink = undefined;
  await (await s?.catch(() => undefined))?.stop();
}
