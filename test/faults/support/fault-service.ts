// Test-only entry for the fault suite: the service as src/main.ts runs it (ROLE=all; settings from
// the environment), except that its ClickHouse client is wrapped by test/support/faulty-clickhouse.ts,
// and faults are switched by messages on the Node IPC channel (not stdin: the embedded engine reads
// a waiting stdin line as INSERT data), so production code carries no fault hooks:
//   fault down | hang | land-then-hang   (acknowledged with `FAULT <name>`)
//   heal                                 (held inserts released; acknowledged with `HEALED`)
// With land-then-hang the next insert lands in ClickHouse and never answers; `LANDED <table> <rows>`
// says it landed, so the test can SIGKILL the process between the insert and the outbox delete.
// On the first start it creates the default project and prints the banner main.ts prints.
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { startWorkers } from '../../../jobs/worker.ts';
import { buildApp } from '../../../src/app.ts';
import { loadConfig } from '../../../src/config.ts';
import { closeDeps, createDeps, type Deps } from '../../../src/deps.ts';
import { createProject } from '../../../src/domain/projects/create-project.ts';
import { createLogger } from '../../../src/lib/logger.ts';
import { createEmbeddedClickHouse } from '../../../src/store/clickhouse/client.ts';
import { countProjects } from '../../../src/store/postgres/projects.ts';
import { type ClickHouseFault, faultyClickHouse } from '../../support/faulty-clickhouse.ts';

const print = (s: string) => process.stdout.write(`${s}\n`);

async function ensureProject(deps: Deps): Promise<void> {
  if ((await countProjects(deps.sql)) > 0) {
    return;
  }
  const { project, serverKey } = await createProject(deps, { name: 'Default project' });
  print(`  project id:    ${project.id}\n  project token: ${project.token}\n  server key:    ${serverKey}`);
}

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const log = createLogger(config.logLevel);
  const inner = await createEmbeddedClickHouse(path.join(config.dataDir, 'clickhouse'));
  let announceLanding = false;
  const faulty = faultyClickHouse(inner, {
    onLanded: (table, rows) => {
      if (announceLanding) {
        print(`LANDED ${table} ${rows}`);
      }
    },
  });
  const deps = await createDeps(config, log, { migrate: true, clickhouse: faulty.client });
  const stopWorkers = await startWorkers(deps);
  await ensureProject(deps);
  const app: FastifyInstance = await buildApp(deps);
  await app.listen({ port: config.port, host: config.host });
  print('FAULT-SERVICE READY');

  process.on('message', (line) => {
    const [cmd, arg] = String(line).trim().split(/\s+/);
    if (cmd === 'fault' && arg) {
      announceLanding = arg === 'land-then-hang';
      faulty.set(arg as ClickHouseFault, arg === 'land-then-hang' ? { times: 1 } : {});
      print(`FAULT ${arg}`);
    } else if (cmd === 'heal') {
      void faulty.heal().then(() => print('HEALED'));
    }
  });

  let stopping = false;
  const shutdown = () => {
    if (stopping) {
      process.exit(1);
    }
    stopping = true;
    setTimeout(() => process.exit(1), 20_000).unref();
    void (async () => {
      await faulty.heal();
      await app.close();
      await stopWorkers();
      await closeDeps(deps);
      await inner.close();
      print('STOPPED');
      process.exit(0);
    })();
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

main().catch((err) => {
  process.stderr.write(`fault-service failed: ${(err as Error).stack}\n`);
  process.exit(1);
});
