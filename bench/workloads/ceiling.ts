// Workload `ceiling`: the bare-Fastify reference figures themselves, so a run always shows what the
// machine could do this time. Other workloads use the same measurements (one per repetition).
import type { Workload } from '../lib/workload.ts';

export const workload: Workload = {
  name: 'ceiling',
  summary: 'bare Fastify GET (302, empty body) and POST (600-byte JSON) in a child process, driven by autocannon',
  order: 0,
  metrics: [
    { id: 'get_rps', label: 'GET req/s', unit: 'req/s', better: 'higher' },
    { id: 'get_p50', label: 'GET p50', unit: 'ms', better: 'lower' },
    { id: 'get_p99', label: 'GET p99', unit: 'ms', better: 'lower' },
    { id: 'post_rps', label: 'POST 600 B req/s', unit: 'req/s', better: 'higher' },
    { id: 'post_p50', label: 'POST 600 B p50', unit: 'ms', better: 'lower' },
    { id: 'post_p99', label: 'POST 600 B p99', unit: 'ms', better: 'lower' },
  ],
  async run(h) {
    const get = await h.ceiling('get');
    const post = await h.ceiling('post');
    return {
      measures: {
        get_rps: { value: get.okPerS },
        get_p50: { value: get.p50 },
        get_p99: { value: get.p99 },
        post_rps: { value: post.okPerS },
        post_p50: { value: post.p50 },
        post_p99: { value: post.p99 },
      },
      details: { get: get.details, post: post.details },
    };
  },
};
