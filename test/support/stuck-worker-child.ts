// A BullMQ worker whose job never finishes, run as a child process so a test can SIGKILL it
// mid-job (test/jobs/queue.test.ts): prints TOOK <payload> when the job starts. Env: REDIS_URL,
// QUEUE_NAME.
import { createLogger } from '../../src/lib/logger.ts';
import { createBullQueue } from '../../src/queue/queue.ts';
import { createRedis, waitForRedis } from '../../src/store/redis/client.ts';

const url = process.env.REDIS_URL ?? '';
const name = process.env.QUEUE_NAME ?? '';
const commands = createRedis(url, 'commands');
await waitForRedis(commands);
const queue = createBullQueue(commands, () => createRedis(url, 'worker'), createLogger('silent'));
await queue.startWorkers({
  [name]: (payload) => {
    process.stdout.write(`TOOK ${JSON.stringify(payload)}\n`);
    return new Promise<void>(() => {});
  },
});
process.stdout.write('READY\n');
