// Prototype-named events end to end (catalog §4c capture-event): a registered, attributed user
// sends events named __proto__, constructor, toString, hasOwnProperty (and a plain one) through
// POST /api/client/capture-event; the facts are flushed to ClickHouse; GET
// /api/v1/reporting/campaigns?events=… must report each name with its own count, in the order
// asked, without touching Object.prototype. fast-check picks the counts and the order.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { check, expectAlive, SEED, Tally } from '../support/bad-input-kit.ts';
import { CLIENT_ROUTES, useBadInputHarness, V1_ROUTES } from '../support/bad-input-routes.ts';
import { attributedInstall, flushFacts } from '../support/client.ts';
import { signUp } from '../support/commerce.ts';
import { newProject } from '../support/harness.ts';

const h = useBadInputHarness();
const tally = new Tally('proto-names-report.test.ts');
afterAll(() => {
  console.log(tally.line());
});

const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'level_up'] as const;
const CAPTURE = CLIENT_ROUTES.find((r) => r.path === '/api/client/capture-event')?.allowed ?? [];
const REPORT = V1_ROUTES.find((r) => r.path === '/api/v1/reporting/campaigns')?.allowed ?? [];

describe('prototype-named events in reporting', () => {
  it('when a registered user sends prototype-named events, then the report counts each name exactly', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(...NAMES.map(() => fc.integer({ min: 0, max: 3 }))),
        fc.shuffledSubarray([...NAMES], { minLength: 1 }),
        async (counts, asked) => {
          const p = await newProject(h().deps);
          const { campaign, iid } = await attributedInstall(h(), p);
          await signUp(h(), p, iid, 'proto-user');
          const sent = new Map<string, number>(NAMES.map((n, i) => [n, counts[i] ?? 0]));
          for (const [name, n] of sent) {
            for (let i = 0; i < n; i++) {
              const res = await check(
                h().app,
                tally,
                {
                  method: 'POST',
                  url: '/api/client/capture-event',
                  payload: {
                    token: p.token,
                    platform: 'ANDROID',
                    install_instance_id: iid,
                    event_name: name,
                    event_id: randomUUID(),
                  },
                },
                CAPTURE,
              );
              expect(res.json().msg).toBe('Event captured successfully');
            }
          }
          await flushFacts(h());

          const row = async (query: string) => {
            const res = await check(
              h().app,
              tally,
              { method: 'GET', url: `/api/v1/reporting/campaigns?${query}`, headers: p.headers },
              REPORT,
            );
            expect(res.statusCode).toBe(200);
            const found = (res.json().data.campaigns as { id: number; custom_events?: unknown }[]).find(
              (c) => c.id === campaign.id,
            );
            return found?.custom_events;
          };
          // Names the project never saw are dropped (spec); the rest keep the order asked.
          const expected = Object.fromEntries(
            asked.filter((n) => (sent.get(n) ?? 0) > 0).map((n) => [n, String(sent.get(n))]),
          );
          // fromEntries defines own keys, so '__proto__' is a plain key here, as in the JSON answer.
          const expectedJson = JSON.parse(JSON.stringify(expected));
          const listed = await row(`events=${asked.map(encodeURIComponent).join(',')}`);
          expect(Object.keys((listed ?? {}) as object)).toEqual(Object.keys(expected));
          expect(listed ?? {}).toEqual(expectedJson);

          const everything = (await row('')) as Record<string, unknown> | undefined;
          for (const [name, n] of sent) {
            expect(Object.hasOwn(everything ?? {}, name) ? everything?.[name] : '0').toBe(String(n));
          }
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
          expect(Object.getPrototypeOf({})).toBe(Object.prototype);
        },
      ),
      { seed: SEED, numRuns: 6, endOnFailure: true },
    );
    await expectAlive(h().app);
  });
});
