// The tables data engineers query say what their columns hold (system.columns comments): every
// column of our tables and views has a comment, and the values a column can hold are all named
// (a re-engagement's `deeplink` method, uninstall tracking's `reinstall_after_uninstall` kind).
import { describe, expect, it } from 'vitest';
import { chJson, migratedTestClickHouse } from '../support/harness.ts';

describe('ClickHouse column comments', () => {
  it('when the migrations have run, then every column of every table and view but the migration log has a comment', async () => {
    const ch = await migratedTestClickHouse();
    const bare = await chJson<{ table: string; name: string }>(
      ch,
      `SELECT table, name FROM system.columns
       WHERE database = currentDatabase() AND comment = '' AND table != 'schema_migrations'
         AND table NOT LIKE '.inner%' AND table NOT IN (SELECT name FROM system.tables
           WHERE database = currentDatabase() AND engine = 'MaterializedView')
       ORDER BY table, name`,
    );
    expect(bare).toEqual([]);
  });

  it("when a data engineer reads the method and kind columns' comments, then they name deeplink and reinstall_after_uninstall", async () => {
    const ch = await migratedTestClickHouse();
    const comments = await chJson<{ table: string; name: string; comment: string }>(
      ch,
      `SELECT table, name, comment FROM system.columns
       WHERE database = currentDatabase() AND (table, name) IN
         (('attributions', 'method'), ('v_attributed_installs', 'method'), ('attributions', 'windows'),
          ('install_events', 'kind'))
       ORDER BY table, name`,
    );
    expect(comments.map((c) => `${c.table}.${c.name}`)).toEqual([
      'attributions.method',
      'attributions.windows',
      'install_events.kind',
      'v_attributed_installs.method',
    ]);
    for (const c of comments) {
      expect(c.comment).toMatch(c.name === 'kind' ? /reinstall_after_uninstall/ : /reengagement/);
    }
    expect(comments.find((c) => c.name === 'method')?.comment).toMatch(/deeplink/);
  });
});
