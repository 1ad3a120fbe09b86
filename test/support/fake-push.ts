// A local fake push service for uninstall tracking: answers each token from a script (default
// delivered) and records what it was sent. Tests change `answers` between simulated days.
import type { PushProvider, PushResult, PushSender, PushTarget } from '../../src/domain/uninstalls/push-sender.ts';

export type FakePush = PushSender & { answers: Map<string, PushResult>; sent: PushTarget[] };

export function fakePushSender(provider: PushProvider, delayMs = 0): FakePush {
  const answers = new Map<string, PushResult>();
  const sent: PushTarget[] = [];
  return {
    provider,
    answers,
    sent,
    async send(batch) {
      if (delayMs > 0) {
        await new Promise((r) => setTimeout(r, delayMs));
      }
      sent.push(...batch);
      return batch.map((t) => answers.get(t.token) ?? 'delivered');
    },
  };
}
