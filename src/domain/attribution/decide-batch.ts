// Decides the installs of one batch together. A fingerprint match is a guess at which device made a
// click, and one click is one device: two phones of one model behind a carrier NAT, one of which
// clicked, were both attributed to that click. So a click that another install of the batch takes
// by a deterministic method (its Play referrer, its own ad id) is no fingerprint match, and of the
// installs that take one click by fingerprint the earliest keeps it (the click came before both;
// decided one by one, in the order their inits came, it went to that one too). The others are
// decided again without it. Across batches the save serialises (candidate-clicks.ts).

import { decideAttribution } from './decide-attribution.ts';
import type { AttributionSettings } from './settings.ts';
import type { Candidates, Decision, InstallSignals } from './types.ts';

export type BatchInput = {
  key: string;
  projectId: string;
  signals: InstallSignals;
  candidates: Candidates;
  cfg: AttributionSettings;
};

/** Keeps a click first for a deterministic method, then for the earliest install. */
function precedence(a: { input: BatchInput; decision: Decision }, b: { input: BatchInput; decision: Decision }) {
  const probabilistic = (d: Decision) => (d.method === 'fingerprint' ? 1 : 0);
  return (
    probabilistic(a.decision) - probabilistic(b.decision) ||
    a.input.signals.installTs - b.input.signals.installTs ||
    (a.input.key < b.input.key ? -1 : a.input.key > b.input.key ? 1 : 0)
  );
}

/**
 * The decisions of the batch's installs, in order, no click taken by fingerprint by two of them.
 * Ends: each round takes one more click from some install, and each has finitely many candidates.
 */
export function decideBatch(inputs: BatchInput[]): Decision[] {
  const taken = inputs.map((x) => new Set(x.candidates.takenClickIds ?? []));
  const decisions = inputs.map((x) => decideAttribution(x.signals, x.candidates, x.cfg));
  for (;;) {
    const holders = new Set<string>();
    const again: number[] = [];
    const order = inputs
      .map((input, i) => ({ input, decision: decisions[i] as Decision, i }))
      .filter((x) => x.decision.click !== null)
      .sort(precedence);
    for (const { input, decision, i } of order) {
      const id = decision.click?.clickId ?? '';
      const key = `${input.projectId}\n${id}`;
      if (!holders.has(key)) {
        holders.add(key);
      } else if (decision.method === 'fingerprint') {
        taken[i]?.add(id);
        again.push(i);
      }
    }
    if (again.length === 0) {
      return decisions;
    }
    for (const i of again) {
      const x = inputs[i] as BatchInput;
      decisions[i] = decideAttribution(x.signals, { ...x.candidates, takenClickIds: taken[i] }, x.cfg);
    }
  }
}
