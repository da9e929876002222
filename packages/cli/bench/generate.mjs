// Generates a pack at every limit of the format: 100 automations of 200 blocks, 100 smart lists,
// 100 message templates of 20,000 characters, 100 pipelines of 50 stages, 500 resources and
// several MB of embedded assets. Deterministic (seeded), so runs compare.
import { createHash } from 'node:crypto';

function rng(seed) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0) / 2 ** 32;
}

export function generateLimitPack({ assetBytes = 6 * 1024 * 1024, assetCount = 8 } = {}) {
  const random = rng(42);
  const automations = Array.from({ length: 100 }, (_, a) => {
    const nodes = [{ id: 'n0', kind: 'trigger.contact_created', config: {}, position: { x: 0, y: 0 } }];
    const edges = [];
    for (let i = 1; i < 200; i++) {
      const node =
        i % 3 === 0
          ? { id: `n${i}`, kind: 'control.wait', config: { duration: 1 + (i % 5), unit: 'days' } }
          : { id: `n${i}`, kind: 'action.add_note', config: { body: `Step ${i} of automation ${a}: {{contact.first_name}}` } };
      nodes.push({ ...node, position: { x: (i % 4) * 160, y: i * 120 } });
      edges.push({ id: `e${i}`, source: `n${i - 1}`, target: `n${i}` });
    }
    return {
      key: `automation-${a}`,
      document: {
        format: 'service.automation-template',
        version: 1,
        name: `Automation ${a}`,
        description: 'Generated for the benchmark.',
        graph: { nodes, edges },
        settings: {
          allow_reenrollment: false,
          stop_on_reply: true,
          daily_send_limit: 1000,
          send_window_start: 540,
          send_window_end: 1020,
          send_window_days: [1, 2, 3, 4, 5],
        },
      },
    };
  });
  const smartLists = Array.from({ length: 100 }, (_, i) => ({
    key: `list-${i}`,
    name: `Smart list ${i}`,
    filters: {
      version: 2,
      root: {
        type: 'and',
        children: [
          { type: 'condition', field: 'created_at', operator: 'within_last_days', value: i + 1 },
          { type: 'condition', field: 'tags', operator: 'includes', value: `tag-${i}` },
        ],
      },
    },
    color: '#3b82f6',
  }));
  const paragraph = 'Hi {{contact.first_name}}, here are the homes we picked for you this week. ';
  const messageTemplates = Array.from({ length: 100 }, (_, i) => ({
    key: `template-${i}`,
    name: `Template ${i}`,
    channel: i % 2 ? 'email' : 'sms',
    subject: `Update ${i}`,
    body: paragraph.repeat(Math.ceil(20000 / paragraph.length)).slice(0, 20000),
  }));
  const pipelines = Array.from({ length: 100 }, (_, p) => ({
    key: `pipeline-${p}`,
    name: `Pipeline ${p}`,
    stages: Array.from({ length: 50 }, (_, s) => ({
      key: `p${p}-s${s}`,
      name: s === 48 ? 'Won' : s === 49 ? 'Lost' : `Stage ${s}`,
      color: '#22c55e',
      probability: s === 48 ? 100 : s === 49 ? 0 : s * 2,
      stageType: s === 48 ? 'CLOSED_WON' : s === 49 ? 'CLOSED_LOST' : 'OPEN',
    })),
  }));
  const kinds = ['tag', 'contact_stage', 'lead_source', 'custom_field', 'email_template'];
  const resources = Array.from({ length: 500 }, (_, i) => ({
    key: `resource-${i}`,
    kind: kinds[i % 5],
    name: `Resource ${i}`,
    data: { color: '#ef4444' },
  }));
  const roles = ['logo', 'favicon', 'social_share_image', 'brokerage_logo', 'team_photo', 'source_document'];
  const assets = Array.from({ length: assetCount }, (_, i) => {
    const bytes = Buffer.alloc(Math.floor(assetBytes / assetCount));
    for (let j = 0; j < bytes.length; j++) bytes[j] = (random() * 256) | 0;
    return {
      key: `asset-${i}`,
      role: roles[i % roles.length],
      fileName: `asset-${i}.bin`,
      mimeType: 'application/octet-stream',
      byteSize: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      data: bytes.toString('base64'),
    };
  });
  return {
    $schema: 'https://setup-pack.dev/schemas/pack.schema.json',
    format: 'service.setup-pack',
    schemaVersion: 2,
    packId: '8d0c2f3e-1a2b-4c3d-9e4f-5a6b7c8d9e0f',
    name: 'Benchmark pack at every limit',
    description: 'x'.repeat(2000),
    version: '1.0.0',
    exportedAt: '2026-01-01T00:00:00Z',
    automations,
    smartLists,
    messageTemplates,
    pipelines,
    resources,
    brand: { primaryColor: '#0f172a', name: 'Bench Realty' },
    assets,
  };
}
