// Every fact carries its project's zone (project_tz), and the views read it: a zone name
// ClickHouse cannot load fails every insert and report of that project. What a project may be
// created with is exactly what the engine loads, spelled as it spells it.
import { describe, expect, it } from 'vitest';
import { isValidTimeZone } from '../../src/lib/validate.ts';
import { chJson, migratedTestClickHouse } from '../support/harness.ts';

async function engineZones(): Promise<string[]> {
  const ch = await migratedTestClickHouse();
  const rows = await chJson<{ time_zone: string }>(ch, 'SELECT time_zone FROM system.time_zones');
  return rows.map((r) => r.time_zone);
}

describe('project time zones and the ClickHouse engine', () => {
  it('when a name or any case variant of it is accepted, then ClickHouse loads it as spelled', async () => {
    const zones = await engineZones();
    const loads = new Set(zones);
    const candidates = [...zones, ...Intl.supportedValuesOf('timeZone')].flatMap((z) => [
      z,
      z.toUpperCase(),
      z.toLowerCase(),
    ]);
    const acceptedButNotLoaded = [...new Set(candidates)].filter((z) => isValidTimeZone(z) && !loads.has(z));
    expect(acceptedButNotLoaded).toEqual([]);
  });

  it('when ClickHouse loads a zone that Intl also reads, then a project may take it', async () => {
    const readable = (z: string) => {
      try {
        new Intl.DateTimeFormat('en-US', { timeZone: z });
        return true;
      } catch {
        return false;
      }
    };
    const refused = (await engineZones()).filter((z) => readable(z) && !isValidTimeZone(z));
    expect(refused).toEqual([]);
  });
});
