// Generates a valid pack at every limit of the spec: 100 automations of 200 nodes, 100 smart
// lists, 100 templates of 20,000 characters, 100 pipelines of 50 stages, 500 resources and
// several MB of assets. Used by the benchmarks (core, cli, installer, editor).
import { createHash, randomBytes } from 'node:crypto';

/**
 * `unknownFields`: config fields our catalog does not know, added to every block, as packs exported
 * by the real service carry them (one info finding each): 2 give 39,800 infos.
 * `textDurations`: every wait block's duration written as text ("3"), as older exports did — a
 * catalog/config-field warning each (3,980): with `unknownFields: 2`, 43,780 findings in all.
 */
export function makeLimitPack({ assetBytes = 6 * 1024 * 1024, seed = 1, unknownFields = 0, textDurations = false } = {}) {
  const kinds = ['action.add_note', 'action.notify', 'control.wait', 'action.add_tag', 'action.send_email'];
  const automations = Array.from({ length: 100 }, (_, a) => {
    const nodes = [{ id: 'n0', kind: 'trigger.contact_created', config: {}, position: { x: 0, y: 0 } }];
    const edges = [];
    for (let i = 1; i < 200; i++) {
      const kind = kinds[(i + a) % kinds.length];
      const config =
        kind === 'action.add_note'
          ? { body: `Step ${i} of automation ${a}` }
          : kind === 'action.notify'
            ? { message: `Step ${i}` }
            : kind === 'control.wait'
              ? { duration: textDurations ? String((i % 7) + 1) : (i % 7) + 1, unit: 'days' }
              : kind === 'action.add_tag'
                ? { tag_id: `tag-${i % 50}` }
                : { template_id: `tpl-${i % 100}` };
      for (let f = 0; f < unknownFields; f++) config[`legacy_field_${f}`] = `v${i}`;
      nodes.push({ id: `n${i}`, kind, config, position: { x: (i % 10) * 220, y: Math.floor(i / 10) * 140 } });
      edges.push({ id: `e${i}`, source: `n${Math.floor((i - 1) / 2)}`, target: `n${i}` });
    }
    // Reference exactly the ids the graph writes, as an exporter would.
    const written = new Set(nodes.map((n) => n.config.tag_id ?? n.config.template_id).filter(Boolean));
    const references = [...written].map((id) => ({ type: id.startsWith('tag-') ? 'tag' : 'email_template', id }));
    return {
      key: `automation-${a}`,
      document: {
        format: 'service.automation-template',
        version: 1,
        name: `Automation ${a}`,
        category: 'Bench',
        graph: { nodes, edges },
        settings: {
          allow_reenrollment: false,
          stop_on_reply: true,
          daily_send_limit: 1000,
          send_window_start: 540,
          send_window_end: 1020,
          send_window_days: [1, 2, 3, 4, 5],
        },
        references,
      },
    };
  });
  const filler = 'Lorem ipsum dolor sit amet, {{contact.first_name}}, consectetur adipiscing elit. ';
  const messageTemplates = Array.from({ length: 100 }, (_, t) => ({
    key: `tpl-${t}`,
    name: `Template ${t}`,
    channel: 'email',
    subject: `Subject ${t}`,
    body: filler.repeat(Math.ceil(20000 / filler.length)).slice(0, 20000),
  }));
  const smartLists = Array.from({ length: 100 }, (_, s) => ({
    key: `list-${s}`,
    name: `List ${s}`,
    color: '#3b82f6',
    filters: {
      version: 2,
      root: {
        type: 'and',
        children: Array.from({ length: 10 }, (_, c) => ({
          type: 'condition',
          field: `field_${c}`,
          operator: 'equals',
          value: `v${s}-${c}`,
        })),
      },
    },
  }));
  const pipelines = Array.from({ length: 100 }, (_, p) => ({
    key: `pipeline-${p}`,
    name: `Pipeline ${p}`,
    stages: Array.from({ length: 50 }, (_, s) => ({
      key: `s${s}`,
      name: `Stage ${s}`,
      color: '#22c55e',
      probability: s === 48 ? 100 : s === 49 ? 0 : s * 2,
      stageType: s === 48 ? 'CLOSED_WON' : s === 49 ? 'CLOSED_LOST' : 'OPEN',
    })),
  }));
  const resources = Array.from({ length: 500 }, (_, r) =>
    r < 50
      ? { key: `tag-${r}`, kind: 'tag', name: `Tag ${r}` }
      : {
          key: `res-${r}`,
          kind: ['contact_stage', 'lead_source', 'custom_field', 'email_template'][r % 4],
          name: `Resource ${r}`,
          data: { n: r },
        },
  );
  const assets = [];
  let remaining = assetBytes;
  for (let i = 0; remaining > 0; i++) {
    const size = Math.min(remaining, 1024 * 1024);
    const bytes = randomBytes(size);
    remaining -= size;
    const isEmail = i % 2 === 1;
    assets.push({
      key: `asset-${i}`,
      role: isEmail ? 'email_image' : 'team_photo',
      fileName: `file-${i}.bin`,
      mimeType: 'application/octet-stream',
      byteSize: size,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      data: bytes.toString('base64'),
      ...(isEmail ? { sourceUrl: `https://cdn.example.com/img-${i}.png` } : {}),
    });
    if (isEmail)
      messageTemplates[i % 100].body = messageTemplates[i % 100].body.slice(0, 19900) + `<img src="https://cdn.example.com/img-${i}.png">`;
  }
  void seed;
  return {
    format: 'service.setup-pack',
    schemaVersion: 2,
    packId: '11111111-2222-4333-8444-555555555555',
    name: 'Pack at every limit',
    version: '1.0.0',
    exportedAt: '2026-11-21T00:00:00Z',
    automations,
    smartLists,
    messageTemplates,
    pipelines,
    resources,
    brand: { name: 'Bench' },
    assets,
  };
}
