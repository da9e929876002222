// Synthetic packs of any size, valid by the format's rules: for rate-limit tests and the benchmark.
import type { Pack } from '@setup-pack/core';

export function generatedPack(
  n: { resources: number; templates: number; smartLists: number; pipelines: number; automations: number },
  version = '1.0.0',
  changeEvery = 0,
): Pack {
  const changed = (i: number) => changeEvery > 0 && i % changeEvery === 0;
  const kinds = ['tag', 'contact_stage', 'lead_source', 'custom_field'] as const;
  const pack: Pack = {
    format: 'service.setup-pack',
    schemaVersion: 2,
    packId: '9a7b6c5d-1e2f-4a3b-8c9d-0e1f2a3b4c5d',
    name: 'Generated',
    version,
    resources: Array.from({ length: n.resources }, (_, i) => ({
      key: `res-${i}`,
      kind: kinds[i % 4],
      name: `Resource ${i}${changed(i) ? ' v2' : ''}`,
      ...(kinds[i % 4] === 'custom_field' ? { data: { type: 'text' } } : {}),
    })),
    messageTemplates: Array.from({ length: n.templates }, (_, i) => ({
      key: `tpl-${i}`,
      name: `Template ${i}`,
      channel: 'email' as const,
      subject: `Hello ${i}`,
      body: `<p>Body ${i}${changed(i) ? ' (new)' : ''} {{contact.first_name}}</p>`,
    })),
    smartLists: Array.from({ length: n.smartLists }, (_, i) => ({
      key: `list-${i}`,
      name: `List ${i}`,
      filters: {
        version: 2 as const,
        root: { type: 'condition', field: 'tags', operator: 'includes', value: `res-${(i * 4) % Math.max(4, n.resources)}` },
      },
      ...(changed(i) ? { color: '#22c55e' } : {}),
    })),
    pipelines: Array.from({ length: n.pipelines }, (_, i) => ({
      key: `pipe-${i}`,
      name: `Pipeline ${i}`,
      stages: [
        { key: 'new', name: 'New', probability: changed(i) ? 15 : 10 },
        { key: 'won', name: 'Won', stageType: 'CLOSED_WON' as const, probability: 100 },
        { key: 'lost', name: 'Lost', stageType: 'CLOSED_LOST' as const, probability: 0 },
      ],
    })),
    automations: Array.from({ length: n.automations }, (_, i) => {
      const tag = `res-${(i * 4) % Math.max(4, n.resources)}`;
      const tpl = `tpl-${i % Math.max(1, n.templates)}`;
      return {
        key: `auto-${i}`,
        document: {
          format: 'service.automation-template' as const,
          version: 1 as const,
          name: `Automation ${i}`,
          graph: {
            nodes: [
              { id: 't', kind: 'trigger.tag_added', config: { tag_id: tag }, position: { x: 0, y: 0 } },
              { id: 'w', kind: 'control.wait', config: { duration: changed(i) ? 2 : 1, unit: 'days' }, position: { x: 0, y: 100 } },
              { id: 'e', kind: 'action.send_email', config: { template_id: tpl }, position: { x: 0, y: 200 } },
              { id: 'o', kind: 'action.assign_owner', config: { user_id: 'usr_owner' }, position: { x: 0, y: 300 } },
            ],
            edges: [
              { id: 'e1', source: 't', target: 'w' },
              { id: 'e2', source: 'w', target: 'e' },
              { id: 'e3', source: 'e', target: 'o' },
            ],
          },
          references: [
            { type: 'tag' as const, id: tag },
            { type: 'email_template' as const, id: tpl },
            { type: 'user' as const, id: 'usr_owner', name: 'Jordan Lee' },
          ],
        },
      };
    }),
    assets: [],
  };
  return pack;
}

/** The pack at every limit the format sets. */
export const fullPack = (version = '1.0.0', changeEvery = 0) =>
  generatedPack({ resources: 500, templates: 100, smartLists: 100, pipelines: 100, automations: 100 }, version, changeEvery);
