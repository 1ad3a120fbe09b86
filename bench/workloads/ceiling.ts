// Workload `ceiling`: the bare-Fastify reference figures themselves, so a run always shows what the
// machine could do this time. Other workloads use the same measurements (one per repetition).
import type { Workload } from '../lib/workload.ts';

export const workload: Workload = {
  name: 'ceiling',
  summary:
    'bare Fastify GET (302, empty body) and POST (600-byte JSON) in a child process, driven by autocannon; the same POST answered after a group-fdatasync append to a local file',
  order: 0,
  metrics: [
    { id: 'get_rps', label: 'GET req/s', unit: 'req/s', better: 'higher' },
    { id: 'get_p50', label: 'GET p50', unit: 'ms', better: 'lower' },
    { id: 'get_p99', label: 'GET p99', unit: 'ms', better: 'lower' },
    { id: 'post_rps', label: 'POST 600 B req/s', unit: 'req/s', better: 'higher' },
    { id: 'post_p50', label: 'POST 600 B p50', unit: 'ms', better: 'lower' },
    { id: 'post_p99', label: 'POST 600 B p99', unit: 'ms', better: 'lower' },
    {
      id: 'durable_rps',
      label: 'POST 600 B, durable append, req/s',
      unit: 'req/s',
      better: 'higher',
      ceiling: 'bare POST',
    },
    { id: 'durable_p99', label: 'POST 600 B, durable append, p99', unit: 'ms', better: 'lower' },
  ],
  async run(h) {
    const get = await h.ceiling('get');
    const post = await h.ceiling('post');
    const durable = await h.ceiling('post_durable');
    return {
      measures: {
        get_rps: { value: get.okPerS },
        get_p50: { value: get.p50 },
        get_p99: { value: get.p99 },
        post_rps: { value: post.okPerS },
        post_p50: { value: post.p50 },
        post_p99: { value: post.p99 },
        durable_rps: { value: durable.okPerS, ceiling: post.okPerS },
        durable_p99: { value: durable.p99 },
      },
      details: { get: get.details, post: post.details, post_durable: durable.details },
    };
  },
};
