// Polling and timing helpers shared by the fault tests.
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Resolves once cond() is true; throws naming `what` after timeoutMs. */
export async function waitUntil(
  what: string,
  cond: () => boolean | Promise<boolean>,
  timeoutMs: number,
  everyMs = 200,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await cond()) {
      return;
    }
    if (Date.now() > end) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    }
    await sleep(everyMs);
  }
}
