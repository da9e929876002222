// The flow/* rules leave their model unbuilt when the kinds of a pack's blocks show there is
// nothing for them to find (blockKindsOfRules, mayCascade). Here every finding of validatePack is
// compared, field for field, with the same validation run with every block kind taken as present,
// so that nothing is skipped: on generated packs, on edits of the fixtures that have flow findings
// (blocks of the kinds the skips look for added, broken, repeated, removed), and on every fixture.
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { fuzzConfig, validPack } from '@setup-pack/testkit';
import { mayCascade } from '../src/behaviour/cascade.js';
import { NODE_KINDS } from '../src/catalog/nodes.js';
import { validatePack } from '../src/validate.js';
import type { Pack } from '../src/types.js';
import { listFixtures, readFixture } from './helpers.js';

const scope = vi.hoisted(() => ({ full: false }));
vi.mock('../src/behaviour/flow.js', async (importOriginal) => {
  const flow = await importOriginal<typeof import('../src/behaviour/flow.js')>();
  const { NODE_KINDS: all } = await import('../src/catalog/nodes.js');
  const every: ReadonlySet<string> = new Set(all);
  return {
    ...flow,
    blockKindsOfRules: (ctx: Parameters<typeof flow.blockKindsOfRules>[0]) => (scope.full ? every : flow.blockKindsOfRules(ctx)),
  };
});

/** The findings of `text` as validate gives them, and as the flow rules give them without a skip. */
function bothWays(text: string) {
  scope.full = false;
  const skipping = validatePack(text).diagnostics;
  scope.full = true;
  try {
    return { skipping, full: validatePack(text).diagnostics };
  } finally {
    scope.full = false;
  }
}

const expectSame = (text: string) => {
  const { skipping, full } = bothWays(text);
  expect(JSON.stringify(skipping)).toBe(JSON.stringify(full));
};

const kindsOf = (pack: Pack) => new Set((pack.automations ?? []).flatMap((a) => a.document.graph.nodes.map((n) => n.kind)));

/** A config naming subject `s` (two values in all, so blocks meet one another) for the kinds that name one. */
const CONFIG: Record<string, (s: string, key: string) => Record<string, unknown>> = {
  'trigger.tag_added': (s) => ({ tag_id: `tag-${s}` }),
  'trigger.stage_changed': (s) => ({ to_stage_id: `stage-${s}` }),
  'trigger.email_opened': (s) => ({ template_id: `tpl-${s}` }),
  'trigger.schedule': (s) => ({ cron: s === 'a' ? '30 20 * * 6' : '0 10 * * 1' }),
  'trigger.contact_created': () => ({}),
  'trigger.task_completed': () => ({}),
  'action.add_tag': (s) => ({ tag_id: `tag-${s}` }),
  'action.remove_tag': (s) => ({ tag_id: `tag-${s}` }),
  'action.set_stage': (s) => ({ stage_id: `stage-${s}` }),
  'action.run_automation': (_, key) => ({ automation_id: key }),
  'action.send_email': (s) => ({ template_id: `tpl-${s}` }),
  'action.send_sms': () => ({ body: 'Hello' }),
  'action.create_task': () => ({ title: 'Call' }),
  'control.wait': () => ({ duration: 1, unit: 'hours' }),
  // A kind the catalog does not know: the block fails its schema and the flow model leaves it out.
  'action.send_whatsapp': () => ({}),
};
const TRIGGER_KINDS = Object.keys(CONFIG).filter((k) => k.startsWith('trigger.'));
const STEP_KINDS = Object.keys(CONFIG).filter((k) => !k.startsWith('trigger.'));
type Block = { kind: string; subject: string; target: number };
type AutomationSpec = { trigger: Block; steps: Block[]; reenroll: boolean; window: boolean; repeatId: boolean };

const subject = fc.constantFrom('a', 'b');
const block = (kinds: string[]) => fc.record({ kind: fc.constantFrom(...kinds), subject, target: fc.nat(2) });
const automation: fc.Arbitrary<AutomationSpec> = fc.record({
  // One trigger more often than the others, so that automations share theirs (flow/conflicting-actions).
  trigger: block([...TRIGGER_KINDS, 'trigger.contact_created', 'trigger.contact_created', 'trigger.contact_created']),
  steps: fc.array(block(STEP_KINDS), { maxLength: 4 }),
  reenroll: fc.boolean(),
  window: fc.boolean(),
  // The last step repeats the id of the first block: a duplicate the flow model leaves out.
  repeatId: fc.boolean(),
});

/** A pack of these automations, each a line of blocks from its trigger, on two tags, stages and templates. */
function packOf(automations: AutomationSpec[]) {
  return {
    format: 'service.setup-pack',
    schemaVersion: 2,
    packId: '00000000-0000-4000-8000-000000000001',
    name: 'Flow',
    version: '1.0.0',
    resources: ['a', 'b'].map((s) => ({ key: `tag-${s}`, kind: 'tag', name: `Tag ${s}` })),
    pipelines: [
      {
        key: 'p',
        name: 'P',
        stages: [
          { key: 'stage-a', name: 'A' },
          { key: 'stage-b', name: 'B' },
          { key: 'won', name: 'Won', stageType: 'CLOSED_WON' },
          { key: 'lost', name: 'Lost', stageType: 'CLOSED_LOST', probability: 0 },
        ],
      },
    ],
    messageTemplates: ['a', 'b'].map((s) => ({ key: `tpl-${s}`, name: `Template ${s}`, channel: 'email', subject: 'Hi', body: 'Hello' })),
    automations: automations.map((a, i) => {
      const nodes = [a.trigger, ...a.steps].map((b, j) => ({
        id: `n${j}`,
        kind: b.kind,
        config: CONFIG[b.kind](b.subject, `a${b.target}`),
        position: { x: 0, y: 120 * j },
      }));
      if (a.repeatId && nodes.length > 1) nodes[nodes.length - 1].id = 'n0';
      const settings = {
        allow_reenrollment: a.reenroll,
        stop_on_reply: false,
        daily_send_limit: 100,
        ...(a.window ? { send_window_start: 540, send_window_end: 1140, send_window_days: [1, 2, 3, 4, 5] } : {}),
      };
      return {
        key: `a${i}`,
        document: {
          format: 'service.automation-template',
          version: 1,
          name: `Automation ${i}`,
          settings,
          graph: { nodes, edges: nodes.slice(1).map((n, j) => ({ id: `e${j}`, source: `n${j}`, target: `n${j + 1}` })) },
        },
      };
    }),
  };
}

const flowPack = fc.array(automation, { minLength: 1, maxLength: 3 }).map(packOf);

/** Packs that have each flow finding, so that every flow rule is compared whatever the seed. */
const on = (kind: string, subject = 'a', target = 0): Block => ({ kind, subject, target });
const line = (trigger: Block, steps: Block[], more: Partial<AutomationSpec> = {}): AutomationSpec => ({
  trigger,
  steps,
  reenroll: true,
  window: false,
  repeatId: false,
  ...more,
});
const FLOW_EXAMPLES: [string, AutomationSpec[]][] = [
  // Each adds the tag that starts the other.
  [
    'flow/cascade-loop',
    [line(on('trigger.tag_added', 'a'), [on('action.add_tag', 'b')]), line(on('trigger.tag_added', 'b'), [on('action.add_tag', 'a')])],
  ],
  // It runs itself.
  ['flow/self-trigger', [line(on('trigger.contact_created'), [on('action.run_automation', 'a', 0)])]],
  // One adds the tag the other removes, on the same trigger.
  [
    'flow/conflicting-actions',
    [line(on('trigger.contact_created'), [on('action.add_tag')]), line(on('trigger.contact_created'), [on('action.remove_tag')])],
  ],
  // Saturday 20:30, an hour's wait, a weekday window.
  ['flow/outside-send-window', [line(on('trigger.schedule'), [on('control.wait'), on('action.send_sms')], { window: true })]],
];

describe('the flow rules skip only what cannot give a finding', () => {
  it('every fixture gives the same findings with and without the skips', () => {
    for (const dir of ['valid', 'invalid', 'releases']) for (const file of listFixtures(dir)) expectSame(readFixture(`${dir}/${file}`));
  });

  const generated = fuzzConfig('flow skips: generated packs', 150);
  it(`generated packs give the same findings with and without the skips (${generated.numRuns} packs)`, () => {
    let skipped = 0;
    let analysed = 0;
    fc.assert(
      fc.property(validPack({ maxItems: 3 }), (pack) => {
        if (mayCascade(kindsOf(pack))) analysed++;
        else skipped++;
        expectSame(JSON.stringify(pack, null, 2));
      }),
      { numRuns: generated.numRuns, seed: generated.seed },
    );
    // Both sides of the cascade's skip were met, or the comparison proves little.
    if (generated.numRuns >= 50) expect(Math.min(skipped, analysed)).toBeGreaterThan(0);
  });

  it('a pack with each flow finding gives the same findings with and without the skips', () => {
    for (const [code, automations] of FLOW_EXAMPLES) {
      const text = JSON.stringify(packOf(automations), null, 2);
      expect(validatePack(text).diagnostics.map((d) => d.code)).toContain(code);
      expectSame(text);
    }
  });

  const small = fuzzConfig('flow skips: packs of the kinds the skips look for', 300);
  it(`packs made of the blocks the skips look for give the same findings with and without the skips (${small.numRuns} packs)`, () => {
    fc.assert(
      fc.property(flowPack, (pack) => expectSame(JSON.stringify(pack, null, 2))),
      { numRuns: small.numRuns, seed: small.seed },
    );
  });

  it('a pack with every block kind is never skipped', () => {
    expect(mayCascade(new Set(NODE_KINDS))).toBe(true);
  });
});
