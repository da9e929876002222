// What a pack will do, measured: the flow/* rules' share of validatePack on the pack at every limit,
// and simulate() over 30 days of a 200-block automation whose blocks start other automations.
import { analyseFlow, validatePack, simulate } from '../dist/index.js';
import { makeLimitPack } from './limit-pack.mjs';
import { nodeHasher } from '../../cli/dist/lib/hasher.js';
import { writeSection, machineLine } from '../../../scripts/bench-report.mjs';

const FLOW = ['flow/cascade-loop', 'flow/self-trigger', 'flow/conflicting-actions', 'flow/outside-send-window'];
const runs = Number(process.env.BENCH_RUNS ?? 21);
const text = JSON.stringify(makeLimitPack(), null, 2);
// The same pack with every automation started by a tag other automations' blocks add: 100
// automations that all start one another, a loop finding and thousands of starts to weigh.
const cascading = makeLimitPack();
cascading.automations.forEach(
  (a, i) => (a.document.graph.nodes[0] = { ...a.document.graph.nodes[0], kind: 'trigger.tag_added', config: { tag_id: `tag-${i % 50}` } }),
);
const cascadingText = JSON.stringify(cascading, null, 2);

/** A pack of 20 automations: the first of 200 blocks (waits, messages and tags that start the others), the others short. */
function cascadePack() {
  const settings = {
    allow_reenrollment: false,
    stop_on_reply: false,
    daily_send_limit: 1000,
    send_window_start: 540,
    send_window_end: 1140,
    send_window_days: [1, 2, 3, 4, 5],
  };
  const resources = Array.from({ length: 20 }, (_, i) => ({ key: `tag-${i}`, kind: 'tag', name: `Tag ${i}` }));
  const big = [{ id: 'n0', kind: 'trigger.contact_created', config: {} }];
  for (let i = 1; i < 200; i++) {
    const k = i % 4;
    big.push(
      k === 0
        ? { id: `n${i}`, kind: 'control.wait', config: { duration: 3, unit: 'hours' } }
        : k === 1
          ? { id: `n${i}`, kind: 'action.send_email', config: { template_id: 'tpl' } }
          : k === 2
            ? { id: `n${i}`, kind: 'action.add_tag', config: { tag_id: `tag-${i % 20}` } }
            : { id: `n${i}`, kind: 'action.remove_tag', config: { tag_id: `tag-${(i + 7) % 20}` } },
    );
  }
  const chain = (nodes) => nodes.slice(1).map((n, i) => ({ id: `e${i}`, source: nodes[i].id, target: n.id }));
  const doc = (name, nodes) => ({
    format: 'service.automation-template',
    version: 1,
    name,
    settings,
    graph: { nodes, edges: chain(nodes) },
  });
  const small = Array.from({ length: 19 }, (_, i) => {
    const nodes = [
      { id: 't', kind: 'trigger.tag_added', config: { tag_id: `tag-${i}` } },
      { id: 'm', kind: 'action.send_sms', config: { body: 'Hi' } },
      { id: 'w', kind: 'control.wait', config: { duration: 1, unit: 'days' } },
      { id: 'a', kind: 'action.add_tag', config: { tag_id: `tag-${(i + 1) % 20}` } },
    ];
    return { key: `follow-${i}`, document: doc(`Follow-up ${i}`, nodes) };
  });
  return {
    format: 'service.setup-pack',
    schemaVersion: 2,
    packId: '11111111-2222-4333-8444-555555555555',
    name: 'Cascade bench',
    version: '1.0.0',
    resources,
    messageTemplates: [{ key: 'tpl', name: 'Template', channel: 'email', subject: 'Hi', body: 'Hello' }],
    automations: [{ key: 'big', document: doc('Big', big) }, ...small],
  };
}

// The fastest of interleaved runs: a difference of two medians on a shared machine moved more with
// the neighbours' load than with the code; the fastest run is the code's cost with the least of it.
const median = (xs) => Math.min(...xs);
const cpuOf = (fn) => {
  const t = performance.now();
  fn();
  return performance.now() - t;
};

const all = [];
const without = [];
const allC = [];
const withoutC = [];
// The analysis alone, on the parsed packs: what the flow/* rules build (blocks, cascade, loops).
const parsed = JSON.parse(text);
const parsedC = JSON.parse(cascadingText);
const alone = [];
const aloneC = [];
validatePack(text, { hashBase64: nodeHasher });
const cascadeFindings = validatePack(cascadingText, { hashBase64: nodeHasher }).diagnostics.filter((d) =>
  d.code.startsWith('flow/'),
).length;
for (let r = 0; r < runs; r++) {
  all.push(cpuOf(() => validatePack(text, { hashBase64: nodeHasher })));
  without.push(cpuOf(() => validatePack(text, { hashBase64: nodeHasher, disableRules: FLOW })));
  // Placing findings in the text (one walk of it, whichever rule found them) is left out of both sides:
  // the baseline has no finding to place, and the walk is the same for any finding.
  allC.push(cpuOf(() => validatePack(cascadingText, { hashBase64: nodeHasher, place: false })));
  withoutC.push(cpuOf(() => validatePack(cascadingText, { hashBase64: nodeHasher, disableRules: FLOW, place: false })));
  alone.push(cpuOf(() => analyseFlow(parsed)));
  aloneC.push(cpuOf(() => analyseFlow(parsedC)));
}
const pack = cascadePack();
const errors = validatePack(pack).diagnostics.filter((d) => d.severity === 'error');
if (errors.length) throw new Error(`the cascade pack has errors: ${errors[0].message}`);
const input = {
  event: 'contact_created',
  contact: { first_name: 'Rosa' },
  at: '2026-12-04T18:45:00-05:00',
  timeZone: 'America/New_York',
  days: 30,
};
const steps = simulate(pack, input).paths.reduce((n, p) => n + p.steps.length, 0);
const sims = [];
for (let r = 0; r < runs; r++) sims.push(cpuOf(() => simulate(pack, input)));
const [a, w, s] = [median(all), median(without), median(sims)];
const share = (a - w) / a;
const [ac, wc] = [median(allC), median(withoutC)];
const shareC = (ac - wc) / ac;
const alC = median(aloneC);
const md = `Machine: ${machineLine()}

Fastest of ${runs} interleaved runs, wall time in one process.

| Measure | Fastest ms | Ratio | Target |
|---|---:|---:|---|
| validatePack, pack at every limit, every rule | ${a.toFixed(0)} | 1.00× | |
| the same without the flow/* rules | ${w.toFixed(0)} | ${(w / a).toFixed(2)}× | |
| the flow/* rules' share | ${Math.max(0, a - w).toFixed(1)} | ${Math.max(0, share).toFixed(2)}× | ≤ 0.2× ${share <= 0.2 ? '(met)' : '(missed)'} |
| the same pack, every automation started by a tag others add (${cascadeFindings} flow finding${cascadeFindings === 1 ? '' : 's'}): validatePack, findings not placed | ${ac.toFixed(0)} | 1.00× | |
| the same without the flow/* rules | ${wc.toFixed(0)} | ${(wc / ac).toFixed(2)}× | |
| the flow/* rules' share | ${Math.max(0, ac - wc).toFixed(1)} | ${Math.max(0, shareC).toFixed(2)}× | ≤ 0.2× ${shareC <= 0.2 ? '(met)' : '(missed)'} |
| the cascade analysis of that pack as the editor's Flow map runs it (analyseFlow, blocks built whole) | ${alC.toFixed(1)} | ${(alC / ac).toFixed(2)}× | |
| simulate, 30 days, a 200-block automation starting 19 others (${steps} steps) | ${s.toFixed(1)} | | < 50 ms ${s < 50 ? '(met)' : '(missed)'} |`;
console.log(md);
writeSection('core-behaviour', md);
