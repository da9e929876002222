import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validatePack } from '../validate.js';
import type { InstallLedger, WorkspaceObject, WorkspaceSnapshot } from '../plan/types.js';
import type { Pack } from '../types.js';
import { exportPack, ledgerSourceOf, mediaToDownload, slugify } from './index.js';

const doc = (name: string, config: Record<string, unknown>, references: unknown[] = []) => ({
  format: 'service.automation-template',
  version: 1,
  name,
  graph: {
    nodes: [
      { id: 't', kind: 'trigger.tag_added', config },
      { id: 'a', kind: 'action.assign_owner', config: { user_id: 'mem_1' } },
    ],
    edges: [{ id: 'e', source: 't', target: 'a' }],
  },
  references,
});

/** A workspace set up by hand: two tags of one name, a member, a template using a media image, an automation using them. */
function snapshot(): WorkspaceSnapshot {
  const collections: Record<string, WorkspaceObject[]> = {
    tags: [
      { id: 'tag_2', name: 'Hot lead', color: '#ef4444' },
      { id: 'tag_1', name: 'Hot lead', color: null },
      { id: 'tag_3', name: 'Café', color: null },
    ],
    members: [{ id: 'mem_1', name: 'Jordan Lee' }],
    message_templates: [
      {
        id: 'tpl_1',
        name: 'Welcome',
        channel: 'email',
        category: null,
        subject: 'Hi',
        body: '<img src="https://media.test/ws/med_1/hero.png">',
        rich_text_doc: null,
        data: null,
      },
    ],
    media: [
      {
        id: 'med_1',
        name: 'hero.png',
        file_name: 'hero.png',
        mime_type: 'image/png',
        byte_size: 3,
        sha256: 'ac9689f34e4c63f6a6e18a5a7a3cc4a8de1d0d8a0b8b1a3a2f2bfa6d8c5b3a3a',
        url: 'https://media.test/ws/med_1/hero.png',
      },
    ],
    automations: [
      { id: 'aut_1', name: 'Hot', document: doc('Hot', { tag_id: 'tag_1' }, [{ type: 'tag', id: 'tag_1' }]), draft_document: null },
    ],
    brand: [],
  };
  return { collections };
}

describe('exportPack --all (pure)', () => {
  it('derives readable, unique keys from names, names every reference and embeds the image', () => {
    const data = Buffer.from('abc').toString('base64');
    const s = snapshot();
    s.collections.media![0].sha256 = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
    const { pack, notes } = exportPack(
      { snapshot: s, mediaData: { med_1: data } },
      { packId: '6f1c2b9e-4d3a-4e8f-9b21-3c5d7e9f0a12', exportedAt: '2026-11-22T12:00:00Z' },
    );
    expect(notes).toEqual([]);
    expect(pack.resources!.map((r) => r.key)).toEqual(['tag-cafe', 'tag-hot-lead', 'tag-hot-lead-2']);
    // Same name: ordered by content (canonical JSON), never by id or list order.
    expect(pack.resources!.find((r) => r.key === 'tag-hot-lead')!.data).toEqual({ color: '#ef4444' });
    const auto = pack.automations![0].document;
    expect(auto.graph.nodes.map((n) => n.config)).toEqual([{ tag_id: 'tag-hot-lead-2' }, { user_id: 'user-jordan-lee' }]);
    expect(auto.references).toEqual([
      { type: 'tag', id: 'tag-hot-lead-2', name: 'Hot lead' },
      { type: 'user', id: 'user-jordan-lee', name: 'Jordan Lee' },
    ]);
    expect(pack.assets).toEqual([
      {
        key: 'image-hero-png',
        role: 'email_image',
        fileName: 'hero.png',
        mimeType: 'image/png',
        byteSize: 3,
        sha256: s.collections.media![0].sha256,
        data,
        sourceUrl: 'https://media.test/ws/med_1/hero.png',
      },
    ]);
    expect(validatePack(pack).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('gives the same pack whatever order the workspace lists its objects in', () => {
    const base = exportPack({ snapshot: snapshot(), mediaData: {} }, { packId: '6f1c2b9e-4d3a-4e8f-9b21-3c5d7e9f0a12' }).pack;
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 8, maxLength: 8 }), (seeds) => {
        const s = snapshot();
        let i = 0;
        for (const list of Object.values(s.collections)) list!.sort(() => (seeds[i++ % seeds.length] % 3) - 1);
        expect(exportPack({ snapshot: s, mediaData: {} }, { packId: '6f1c2b9e-4d3a-4e8f-9b21-3c5d7e9f0a12' }).pack).toEqual(base);
      }),
      { numRuns: 50 },
    );
  });

  it('slugifies names to lower-case ASCII words', () => {
    expect(slugify('Hot lead (2024)')).toBe('hot-lead-2024');
    expect(slugify('  Crème brûlée ')).toBe('creme-brulee');
    expect(slugify('🏠')).toBe('item');
  });
});

describe('exportPack --pack-id (pure): a brand the install did not set', () => {
  const bytes = Buffer.from('abc').toString('base64');
  const sha = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
  const pack = {
    format: 'service.setup-pack',
    schemaVersion: 2,
    packId: '6f1c2b9e-4d3a-4e8f-9b21-3c5d7e9f0a12',
    name: 'Branded',
    version: '1.0.0',
    brand: { name: 'Harbor Realty' },
    assets: [
      { key: 'logo', role: 'logo', fileName: 'logo.png', mimeType: 'image/png', byteSize: 3, sha256: sha, data: bytes },
      {
        key: 'favicon',
        role: 'favicon',
        fileName: 'favicon.png',
        mimeType: 'image/png',
        byteSize: 3,
        sha256: sha,
        url: 'https://cdn.test/favicon.png',
      },
    ],
  } as Pack;
  const ledger = (state: InstallLedger['state']): InstallLedger => ({
    packId: pack.packId,
    packName: pack.name,
    version: state === 'installed' ? '1.0.0' : null,
    state,
    targetVersion: '1.0.0',
    bindings: {},
    items: {
      'asset:logo': { kind: 'asset', key: 'logo', collection: 'media', workspaceId: 'med_1', hash: 'h', sourceHash: 's', owned: true },
    },
    source: ledgerSourceOf(pack),
  });
  const snapshot = (): WorkspaceSnapshot => ({
    collections: {
      media: [
        {
          id: 'med_1',
          name: 'logo.png',
          file_name: 'logo.png',
          mime_type: 'image/png',
          byte_size: 3,
          sha256: sha,
          url: 'https://media.test/ws/med_1/logo.png',
        },
      ],
      brand: [{ id: 'brand', name: 'Mine', fields: { name: 'Mine' }, asset_urls: {} }],
    },
  });

  it('leaves out its images, uploaded or given by address, and says why; an interrupted install says so', () => {
    for (const [state, why] of [
      ['installed', 'not set by this install (the workspace keeps its own brand)'],
      ['in_progress', 'not set yet by the interrupted install'],
    ] as const) {
      const l = ledger(state);
      expect(mediaToDownload(snapshot(), l)).toEqual([]);
      const r = exportPack({ snapshot: snapshot(), mediaData: {}, ledger: l });
      expect(r.pack.brand).toBeUndefined();
      expect(r.pack.assets).toBeUndefined();
      expect(r.notes.filter((n) => n.item === 'brand')).toEqual([
        { item: 'brand', message: `${why}: left out, and so are the pack's brand images favicon, logo` },
      ]);
    }
  });

  it('keeps them when the ledger has the brand, or was written before it said whether the pack has one', () => {
    const withBrand = ledger('installed');
    withBrand.items['brand:brand'] = {
      kind: 'brand',
      key: 'brand',
      collection: 'brand',
      workspaceId: 'brand',
      hash: 'h',
      sourceHash: 's',
      owned: true,
    };
    const older = ledger('installed');
    delete older.source!.brand;
    for (const l of [withBrand, older]) {
      expect(mediaToDownload(snapshot(), l)).toEqual(['med_1']);
      const r = exportPack({ snapshot: snapshot(), mediaData: { med_1: bytes }, ledger: l });
      expect(r.pack.assets!.map((a) => a.key)).toEqual(['favicon', 'logo']);
      expect(r.notes).toEqual([]);
    }
  });
});

describe('ledgerSourceOf: where the graph writes reference ids', () => {
  it('records the places of the ids of a type the automation has two or more of, and only those', () => {
    const graph = {
      nodes: [
        { id: 't', kind: 'trigger.tag_added', config: { tag_id: 'hot' } },
        { id: 'a/b', kind: 'action.add_tag', config: { tag_id: 'tag-hot', notes: ['hot', 'other'] } },
        { id: 'u', kind: 'action.assign_owner', config: { user_id: 'usr_1' } },
      ],
      edges: [
        { id: 'e1', source: 't', target: 'a/b' },
        { id: 'e2', source: 'a/b', target: 'u' },
      ],
    };
    const pack = {
      format: 'service.setup-pack',
      schemaVersion: 2,
      packId: '00000000-0000-4000-8000-000000000001',
      name: 'P',
      version: '1.0.0',
      automations: [
        {
          key: 'auto',
          document: {
            format: 'service.automation-template',
            version: 1,
            name: 'A',
            graph,
            references: [
              { type: 'tag', id: 'hot', name: 'Hot' },
              { type: 'tag', id: 'tag-hot' },
              { type: 'user', id: 'usr_1', name: 'Jordan Lee' },
            ],
          },
        },
      ],
    } as unknown as Pack;
    expect(ledgerSourceOf(pack).referencePlaces).toEqual({
      auto: [
        { node: 't', path: '/tag_id', id: 'hot' },
        { node: 'a/b', path: '/tag_id', id: 'tag-hot' },
        { node: 'a/b', path: '/notes/0', id: 'hot' },
      ],
    });
    const one = structuredClone(pack);
    one.automations![0].document.references = one.automations![0].document.references!.filter((r) => r.id !== 'tag-hot');
    expect(ledgerSourceOf(one).referencePlaces).toBeUndefined();
  });
});
