// Folds the stored per-window counters into the evaluator's input for one window.
import type { SkanActivityRow } from '../../store/postgres/skan.ts';
import type { WindowActivity } from './evaluate-schema.ts';

export function windowActivity(rows: readonly SkanActivityRow[], windowIndex: number): WindowActivity {
  const out: WindowActivity = { signup: false, events: {}, revenue: 0 };
  for (const r of rows) {
    if (r.windowIndex !== windowIndex) {
      continue;
    }
    if (r.kind === 'signup') {
      out.signup = true;
    } else if (r.kind === 'revenue') {
      out.revenue += Number(r.amount);
    } else if (r.kind === 'event') {
      out.events[r.name] = { count: r.count, amount: Number(r.amount) };
    }
  }
  return out;
}
