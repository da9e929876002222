// Generated packs for the benchmark: a 200-node automation and a pack at every limit.
import { createHash } from 'node:crypto';
const uuid = '6f1c2b9e-4d3a-4e8f-9b21-3c5d7e9f0a12';
const ACTIONS = ['action.add_tag', 'action.send_sms', 'action.create_task', 'action.add_note', 'control.wait'];

/** An automation of `n` blocks: a trigger, then a tree of actions and if/else blocks, laid out in rows. */
export function automation(key, n) {
  const nodes = [{ id: 'n0', kind: 'trigger.contact_created', config: {}, position: { x: 0, y: 0 } }];
  const edges = [];
  const perRow = 10;
  for (let i = 1; i < n; i++) {
    const isIf = i % 7 === 3;
    const kind = isIf ? 'control.if' : ACTIONS[i % ACTIONS.length];
    const config =
      kind === 'action.add_tag'
        ? { tag_id: 'tag-a' }
        : kind === 'action.add_note'
          ? { body: `Note ${i}` }
          : kind === 'action.create_task'
            ? { title: `Task ${i}` }
            : kind === 'control.wait'
              ? { duration: 1, unit: 'days' }
              : kind === 'action.send_sms'
                ? { body: 'Hi {{contact.first_name}}' }
                : { conditions: { type: 'condition', field: 'x', operator: 'is_set' } };
    nodes.push({ id: `n${i}`, kind, config, position: { x: ((i - 1) % perRow) * 260, y: (Math.floor((i - 1) / perRow) + 1) * 120 } });
    const parent = i === 1 ? 0 : i - 1 - ((i - 1) % perRow === 0 ? 0 : 0);
    const p = nodes[parent];
    const edge = { id: `e${i}`, source: `n${parent}`, target: `n${i}` };
    if (p.kind === 'control.if') edge.handle = i % 2 ? 'true' : 'false';
    edges.push(edge);
  }
  // give every if/else its second output
  for (const node of nodes)
    if (node.kind === 'control.if') {
      const used = new Set(edges.filter((e) => e.source === node.id).map((e) => e.handle));
      const target = `n${Math.min(Number(node.id.slice(1)) + 2, n - 1)}`;
      for (const h of ['true', 'false'])
        if (!used.has(h) && target !== node.id) edges.push({ id: `e${node.id}${h}`, source: node.id, target, handle: h });
    }
  return {
    key,
    document: {
      format: 'service.automation-template',
      version: 1,
      name: `Automation ${key}`,
      graph: { nodes, edges },
      settings: null,
      references: [{ type: 'tag', id: 'tag-a', name: 'A' }],
    },
  };
}

export function pack({ automations, automationSize, full }) {
  const p = { format: 'service.setup-pack', schemaVersion: 2, packId: uuid, name: 'Bench pack', version: '1.0.0', automations: [] };
  for (let i = 0; i < automations; i++) p.automations.push(automation(`a${i}`, automationSize));
  if (full) {
    p.smartLists = Array.from({ length: 100 }, (_, i) => ({
      key: `sl${i}`,
      name: `List ${i}`,
      filters: { version: 2, root: { type: 'and', children: [{ type: 'condition', field: 'tags', operator: 'includes', value: 'x' }] } },
    }));
    p.messageTemplates = Array.from({ length: 100 }, (_, i) => ({
      key: `t${i}`,
      name: `Template ${i}`,
      channel: 'email',
      subject: 'Hi',
      body: `Hello {{contact.first_name}} ${'x'.repeat(19970)}`.slice(0, 20000),
    }));
    p.pipelines = Array.from({ length: 100 }, (_, i) => ({
      key: `p${i}`,
      name: `Pipeline ${i}`,
      stages: [
        ...Array.from({ length: 48 }, (_, j) => ({ key: `s${j}`, name: `Stage ${j}`, stageType: 'OPEN', probability: j })),
        { key: 'w', name: 'Won', stageType: 'CLOSED_WON', probability: 100 },
        { key: 'l', name: 'Lost', stageType: 'CLOSED_LOST', probability: 0 },
      ],
    }));
    p.resources = Array.from({ length: 500 }, (_, i) => ({ key: `r${i}`, kind: 'tag', name: `Tag ${i}` }));
    // Several MB of assets, as the limit in the issue has: 6 files of 1 MiB (deterministic bytes).
    p.assets = Array.from({ length: 6 }, (_, i) => {
      const bytes = Buffer.alloc(2 ** 20);
      let x = 2463534242 + i;
      for (let k = 0; k < bytes.length; k++) {
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        bytes[k] = x & 255;
      }
      return {
        key: `asset${i}`,
        role: 'source_document',
        fileName: `file-${i}.bin`,
        mimeType: 'application/octet-stream',
        byteSize: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        data: bytes.toString('base64'),
      };
    });
  }
  return JSON.stringify(p, null, 2) + '\n';
}

export const big = pack({ automations: 1, automationSize: 200 });
export const limits = pack({ automations: 100, automationSize: 200, full: true });

/**
 * The pack at every limit as the real service exports it: three config fields our catalog does
 * not know on every block but the triggers, an info finding each (59,700 findings).
 */
export const noisy = (() => {
  const p = JSON.parse(limits);
  for (const a of p.automations)
    for (const n of a.document.graph.nodes)
      if (!n.kind.startsWith('trigger.')) Object.assign(n.config, { legacy_a: 1, legacy_b: 'x', legacy_c: true });
  return JSON.stringify(p, null, 2) + '\n';
})();
