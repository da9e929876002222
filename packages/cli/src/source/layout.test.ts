// build(unpack(p)) gives p back. build sets exportedAt, so the expected pack is p with
// exportedAt replaced by the build's value; everything else must come back byte for byte in
// canonical form (formatPack of both is identical).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { canonicalize, formatPack, validatePack } from '@setup-pack/core';
import {
  buildFromFiles,
  cutPointer,
  JSON_SOURCE_FOLDERS,
  LAYOUT_PATHS,
  MANIFEST,
  sourceFileText,
  sourceRole,
  unpackToFiles,
  UnpackError,
} from './layout.js';
import { encodeKey, stemsForKeys } from './names.js';
import { keyArb, packArb, shuffled, smallObject } from '../../test/arbitraries.js';

const STAMP = '2030-01-02T03:04:05Z';
const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../../../../fixtures/${name}`, import.meta.url), 'utf8'));

function roundTrip(pack: Record<string, unknown>) {
  const files = unpackToFiles(pack);
  const built = buildFromFiles(files, { exportedAt: STAMP });
  return { files, built, expected: canonicalize({ ...pack, exportedAt: STAMP }) };
}

describe('build(unpack(p))', () => {
  it('gives back any pack whose items have unique string keys (exportedAt set by build)', () => {
    fc.assert(
      fc.property(packArb, (pack) => {
        const { built, expected } = roundTrip(pack);
        expect(built.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        expect(formatPack(built.pack)).toBe(formatPack(expected));
      }),
      { numRuns: 300 },
    );
  });

  it('gives back valid packs made from the fixtures with random bodies, assets, brand and item order', () => {
    const bases = [
      fixture('valid/buyer-lead-starter.json'),
      fixture('valid/listing-marketing.json'),
      fixture('releases/buyer-lead-1.1.0.json'),
    ];
    const arb = fc.record({
      base: fc.constantFrom(...bases),
      body: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 300 }),
      bytes: fc.uint8Array({ minLength: 0, maxLength: 300 }),
      brand: fc.oneof(fc.constant(undefined), fc.constant(null), smallObject),
      seed: fc.integer(),
    });
    fc.assert(
      fc.property(arb, ({ base, body, bytes, brand, seed }) => {
        const pack = structuredClone(base);
        for (const t of pack.messageTemplates ?? []) t.body = `${t.body}${body}`;
        for (const a of pack.assets ?? []) {
          if (a.role === 'email_image') continue;
          const buf = Buffer.from(bytes);
          Object.assign(a, { data: buf.toString('base64'), byteSize: buf.length, sha256: createHash('sha256').update(buf).digest('hex') });
        }
        if (brand !== undefined && pack.schemaVersion === 2) pack.brand = brand;
        for (const kind of ['automations', 'smartLists', 'messageTemplates', 'pipelines', 'resources']) {
          const list = pack[kind];
          if (Array.isArray(list))
            list.sort((a: { key: string }, b: { key: string }) =>
              createHash('md5').update(`${seed}${a.key}`).digest('hex') < createHash('md5').update(`${seed}${b.key}`).digest('hex')
                ? -1
                : 1,
            );
        }
        expect(validatePack(pack).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
        const { built, expected } = roundTrip(pack);
        expect(built.diagnostics).toEqual([]);
        expect(formatPack(built.pack)).toBe(formatPack(expected));
        expect(validatePack(built.pack).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  it('writes the layout documented in docs/cli.md', () => {
    const files = unpackToFiles(fixture('valid/listing-marketing.json'));
    const names = [...files.keys()];
    expect(names).toContain(MANIFEST);
    expect(names).toContain('automations/open-house-invite.json');
    expect(names.some((n) => /^templates\/.+\.html$/.test(n))).toBe(true);
    expect(names.some((n) => /^resources\/[a-z_]+\.json$/.test(n))).toBe(true);
    expect(names.some((n) => n.startsWith('assets/'))).toBe(true);
    const manifest = JSON.parse(new TextDecoder().decode(files.get(MANIFEST)));
    expect(manifest.automations).toEqual(fixture('valid/listing-marketing.json').automations.map((a: { key: string }) => a.key));
    expect(manifest).not.toHaveProperty('exportedAt');
    expect(manifest).not.toHaveProperty('$schema');
    expect(manifest.packSchema).toBe('https://setup-pack.dev/schemas/pack.schema.json');
    // The manifest's own $schema is for editors and never reaches the pack.
    manifest.$schema = './manifest.schema.json';
    files.set(MANIFEST, new TextEncoder().encode(JSON.stringify(manifest)));
    expect(buildFromFiles(files, { exportedAt: STAMP }).pack!.$schema).toBe('https://setup-pack.dev/schemas/pack.schema.json');
    const assets = JSON.parse(new TextDecoder().decode(files.get('assets.json')));
    expect(assets[0]).not.toHaveProperty('data');
    expect(assets[0]).not.toHaveProperty('sha256');
    expect(typeof assets[0].file).toBe('string');
  });

  it('ignores files and folders starting with a dot in the files it is given, at any depth', () => {
    fc.assert(
      fc.property(packArb, (pack) => {
        const files = unpackToFiles(pack);
        const clean = buildFromFiles(files, { exportedAt: STAMP });
        const junk = new TextEncoder().encode('[{"key": "stray", "name": "x"}');
        for (const f of [
          '.git/config',
          'resources/.tag.json',
          'automations/.draft.json',
          'templates/.x.html',
          'assets/.DS_Store',
          'assets/.cache/a.png',
          '.manifest.json',
        ])
          files.set(f, junk);
        const built = buildFromFiles(files, { exportedAt: STAMP });
        expect(built.diagnostics).toEqual(clean.diagnostics);
        expect(formatPack(built.pack)).toBe(formatPack(clean.pack));
      }),
      { numRuns: 50 },
    );
  });

  it('refuses an automation without a document or with fields besides key and document, naming it; build gives back every other pack', () => {
    const fieldArb = fc.dictionary(
      fc.string({ maxLength: 8 }).filter((k) => k !== 'key' && k !== 'document'),
      fc.jsonValue({ maxDepth: 1 }),
      { minKeys: 1, maxKeys: 2 },
    );
    const oddArb = fc.record({ drop: fc.boolean(), extra: fc.option(fieldArb, { nil: undefined }) });
    fc.assert(
      fc.property(packArb, fc.array(oddArb, { minLength: 5, maxLength: 5 }), (base, odds) => {
        const pack = structuredClone(base) as Record<string, unknown>;
        const automations = (pack.automations ?? []) as Record<string, unknown>[];
        const refused: string[] = [];
        automations.forEach((a, i) => {
          const { drop, extra } = odds[i];
          if (drop) delete a.document;
          for (const [k, v] of Object.entries(extra ?? {}))
            Object.defineProperty(a, k, { value: v, enumerable: true, writable: true, configurable: true });
          if (drop || extra) refused.push(a.key as string);
        });
        if (!refused.length) {
          const { built, expected } = roundTrip(pack);
          expect(formatPack(built.pack)).toBe(formatPack(expected));
          return;
        }
        let error: unknown;
        try {
          unpackToFiles(pack);
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(UnpackError);
        expect((error as Error).message).toContain(`automation ${JSON.stringify(refused[0])} has `);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses packs whose items lack unique string keys', () => {
    expect(() => unpackToFiles({ automations: [{ key: 'a' }, { key: 'a' }] })).toThrow(UnpackError);
    expect(() => unpackToFiles({ smartLists: [{ name: 'x' }] })).toThrow(/no string key/);
    expect(() => unpackToFiles([1])).toThrow(/not a pack/);
  });
});

describe("each source file's canonical form (sourceFileText, which unpack writes and fmt rewrites to)", () => {
  const utf8 = new TextDecoder();
  it('is what unpack writes: every JSON file it writes has a role and is its own canonical form, for any pack', () => {
    fc.assert(
      fc.property(packArb, (pack) => {
        for (const [path, bytes] of unpackToFiles(pack)) {
          const role = sourceRole(path);
          if (!path.endsWith('.json') || path.startsWith('assets/')) {
            expect(role).toBeUndefined();
            continue;
          }
          expect(role, path).toBeDefined();
          const text = utf8.decode(bytes);
          expect(sourceFileText(role!, JSON.parse(text))).toBe(text);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('does not need the pack in canonical order: unpack writes for a pack with its keys shuffled what it writes for that pack canonicalized', () => {
    fc.assert(
      fc.property(packArb, fc.integer(), (pack, seed) => {
        const mixed = shuffled(pack, seed);
        expect(unpackToFiles(mixed)).toEqual(unpackToFiles(canonicalize(mixed)));
      }),
      { numRuns: 200 },
    );
    for (const f of ['valid/buyer-lead-starter.json', 'valid/listing-marketing.json', 'releases/buyer-lead-1.1.0.json']) {
      const mixed = shuffled(fixture(f), 7);
      expect(unpackToFiles(mixed)).toEqual(unpackToFiles(canonicalize(mixed)));
    }
  });

  it("puts the layout's own fields in their places, and leaves what has the wrong shape for its role in its order", () => {
    const manifest = {
      name: 'N',
      automations: ['b', 'a'],
      x: 1,
      packSchema: 'p',
      $schema: 'm',
      format: 'service.setup-pack',
      brand: { z: 1, a: 2 },
    };
    expect(Object.keys(JSON.parse(sourceFileText('manifest', manifest)))).toEqual([
      '$schema',
      'packSchema',
      'format',
      'name',
      'automations',
      'brand',
      'x',
    ]);
    expect(JSON.parse(sourceFileText('manifest', manifest)).automations).toEqual(['b', 'a']);
    // Objects in an item list are build's error (build/manifest): fmt leaves them in their order.
    expect(sourceFileText('manifest', { automations: [{ document: 1, key: 'k' }] })).toBe(
      '{\n  "automations": [\n    {\n      "document": 1,\n      "key": "k"\n    }\n  ]\n}\n',
    );
    expect(Object.keys(JSON.parse(sourceFileText('assets', [{ file: 'f', x: 1, mimeType: 'm', fileName: 'n', key: 'k' }]))[0])).toEqual([
      'key',
      'fileName',
      'file',
      'mimeType',
      'x',
    ]);
    expect(Object.keys(JSON.parse(sourceFileText('assets', [{ file: 'f', x: 1, key: 'k' }]))[0])).toEqual(['key', 'file', 'x']);
    expect(Object.keys(JSON.parse(sourceFileText('resources', [{ data: {}, name: 'n', key: 'k' }]))[0])).toEqual(['key', 'name', 'data']);
    // An inline body stays in the template's file, in its place.
    expect(Object.keys(JSON.parse(sourceFileText('message-template', { body: 'b', channel: 'email', name: 'n' })))).toEqual([
      'name',
      'channel',
      'body',
    ]);
    for (const [role, value] of [
      ['automation-document', [{ name: 1, format: 2 }]],
      ['resources', { name: 1, key: 2 }],
      ['assets', { key: 1, data: 2 }],
      ['manifest', [3, { name: 1, format: 2 }]],
      ['smart-list', 'text'],
      ['pipeline', null],
    ] as const) {
      expect(sourceFileText(role, value)).toBe(JSON.stringify(value, null, 2) + '\n');
    }
  });

  it('states the layout once: what unpack writes is in LAYOUT_PATHS, and the files of JSON_SOURCE_FOLDERS (only) have roles', () => {
    fc.assert(
      fc.property(packArb, (pack) => {
        for (const path of unpackToFiles(pack).keys()) {
          expect(LAYOUT_PATHS, path).toContain(path.split('/')[0]);
          if (path.includes('/') && sourceRole(path) !== undefined) expect(JSON_SOURCE_FOLDERS, path).toContain(path.split('/')[0]);
        }
      }),
      { numRuns: 100 },
    );
    for (const folder of JSON_SOURCE_FOLDERS) expect(sourceRole(`${folder}/x.json`), folder).toBeDefined();
    expect(sourceRole('assets/x.json')).toBeUndefined();
  });

  it('gives a role to the files build reads as JSON sources, and to nothing else', () => {
    const roles = Object.fromEntries(
      [
        'manifest.json',
        'assets.json',
        'automations/a.json',
        'smart-lists/a.json',
        'pipelines/a.json',
        'templates/a.json',
        'resources/tag.json',
        'resources/_unsorted.json',
      ].map((p) => [p, sourceRole(p)]),
    );
    expect(roles).toEqual({
      'manifest.json': 'manifest',
      'assets.json': 'assets',
      'automations/a.json': 'automation-document',
      'smart-lists/a.json': 'smart-list',
      'pipelines/a.json': 'pipeline',
      'templates/a.json': 'message-template',
      'resources/tag.json': 'resources',
      'resources/_unsorted.json': 'resources',
    });
    for (const p of [
      'README.json',
      'package.json',
      'templates/a.html',
      'templates/a.txt',
      'assets/data.json',
      'assets/x/y.json',
      'automations/.draft.json',
      '.manifest.json',
      'automations/sub/a.json',
      'other/a.json',
      'automations',
    ])
      expect(sourceRole(p), p).toBeUndefined();
  });
});

describe('file names for keys', () => {
  it('are safe on every common file system', () => {
    fc.assert(
      fc.property(keyArb, (key) => {
        const name = encodeKey(key);
        expect(name).toMatch(/^[A-Za-z0-9_.%u-]+$/);
        expect(name.startsWith('.')).toBe(false);
        expect(name.endsWith('.')).toBe(false);
        expect(/^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i.test(name)).toBe(false);
      }),
    );
  });

  it('are distinct within a folder, ignoring case, and short enough', () => {
    fc.assert(
      fc.property(fc.uniqueArray(keyArb, { maxLength: 20 }), (keys) => {
        const stems = stemsForKeys(keys);
        expect(new Set(stems.map((s) => s.toLowerCase())).size).toBe(keys.length);
        for (const s of stems) expect(Buffer.byteLength(s)).toBeLessThanOrEqual(180);
      }),
    );
    expect(stemsForKeys(['Foo', 'foo'])[1]).toMatch(/^foo~[0-9a-f]{12}$/);
    expect(stemsForKeys(['a/b'])).toEqual(['a%2Fb']);
  });
});

describe('cutPointer', () => {
  it('cuts a pointer with no escape where the parsed tokens would, for any pointer', () => {
    const token = fc.oneof(
      fc.constantFrom('automations', 'resources', 'assets', 'document', 'key', 'body', 'kind', 'data', '0', '12', ''),
      fc.string({ maxLength: 6 }),
    );
    const pointer = fc.oneof(
      fc.array(token, { maxLength: 6 }).map((ts) => ts.map((t) => `/${t.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('')),
      fc.string({ maxLength: 12 }),
    );
    fc.assert(
      fc.property(pointer, (p) => {
        expect(cutPointer(p)).toEqual(cutPointer(p, true));
      }),
      { numRuns: 2000 },
    );
    expect(cutPointer('/automations/3/document/graph/nodes/0')).toEqual({
      kind: 'automations',
      indexToken: '3',
      field: 'document',
      fromField: '/document/graph/nodes/0',
      afterField: '/graph/nodes/0',
    });
    expect(cutPointer('/a~1b/0/c~0d/e')).toEqual({ kind: 'a/b', indexToken: '0', field: 'c~d', fromField: '/c~0d/e', afterField: '/e' });
    expect(cutPointer('no slash')).toBeUndefined();
  });
});

describe('locate, for a finding about a missing property', () => {
  it('places a missing template body at the file unpack writes it in, the one to create, and any other at the item', () => {
    fc.assert(
      fc.property(packArb, (pack) => {
        const files = unpackToFiles(pack);
        const templates = (pack.messageTemplates ?? []) as Record<string, unknown>[];
        const stems = stemsForKeys(templates.map((t) => t.key as string));
        const removed = new Set<number>();
        templates.forEach((t, i) => {
          for (const ext of ['html', 'txt']) if (files.delete(`templates/${stems[i]}.${ext}`)) removed.add(i);
        });
        const built = buildFromFiles(files, { exportedAt: STAMP });
        templates.forEach((t, i) => {
          const at = built.locate(`/messageTemplates/${i}`, 'body');
          // Its body file removed, or none written (a template without a body): the body goes in that
          // file. A body unpack kept in the JSON file (one that cannot be UTF-8, or not a string) is there.
          const inJson = 'body' in JSON.parse(new TextDecoder().decode(files.get(`templates/${stems[i]}.json`)));
          expect(inJson).toBe(!removed.has(i) && t.body !== undefined);
          if (!inJson) {
            expect(at.file).toBe(`templates/${stems[i]}.${t.channel === 'sms' ? 'txt' : 'html'}`);
            expect(at.pointer).toBeUndefined();
            expect(at.said?.note).toBe(`${at.file} does not exist: the source folder keeps "body" in that file.`);
            expect(at.said?.hint).toBe(`Create ${at.file}, or write "body" in templates/${stems[i]}.json.`);
          } else expect(at.said).toBeUndefined();
          expect(built.locate(`/messageTemplates/${i}`, 'name')).toEqual({ file: `templates/${stems[i]}.json`, pointer: '' });
          expect(built.locate(`/messageTemplates/${i}`)).toEqual({ file: `templates/${stems[i]}.json`, pointer: '' });
        });
      }),
      { numRuns: 200 },
    );
  });
});

describe('a template body that starts with a byte order mark (U+FEFF)', () => {
  const pack = (body: string) => ({
    format: 'service.setup-pack',
    schemaVersion: 2,
    packId: '00000000-0000-4000-8000-000000000000',
    name: 'p',
    version: '1.0.0',
    messageTemplates: [
      { key: 'hi', name: 'Hi', channel: 'email', body },
      { key: 'sms', name: 'Sms', channel: 'sms', body: `\uFEFF\uFEFFtwo` },
    ],
  });
  it("comes back from build(unpack(p)): a body file's own BOM is read as its encoding mark, so unpack keeps such a body in the JSON", () => {
    const { files, built, expected } = roundTrip(pack('\uFEFF<p>Hi</p>'));
    expect(built.diagnostics).toEqual([]);
    expect(formatPack(built.pack)).toBe(formatPack(expected));
    expect(files.has('templates/hi.html')).toBe(false);
    expect(JSON.parse(new TextDecoder().decode(files.get('templates/hi.json'))).body).toBe('\uFEFF<p>Hi</p>');
  });
  it("written by an editor at the start of a body file, is the file's encoding mark and not part of the body", () => {
    const files = unpackToFiles(pack('<p>Hi</p>\r\n'));
    files.set('templates/hi.html', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(files.get('templates/hi.html')!)]));
    const built = buildFromFiles(files, { exportedAt: STAMP });
    expect((built.pack!.messageTemplates as { body: string }[])[0].body).toBe('<p>Hi</p>\r\n');
  });
});

describe('a source file that does not parse, or has the wrong shape', () => {
  const starter = () => unpackToFiles(fixture('valid/listing-marketing.json'));
  const codes = (files: Map<string, Uint8Array>) =>
    buildFromFiles(files, { exportedAt: STAMP }).diagnostics.map((d) => `${d.file} ${d.code}`);
  it("is the one finding: a template's body file still belongs to the template its manifest key names", () => {
    for (const broken of ['{ "name": ', '[]', 'null']) {
      const files = starter();
      const tpl = [...files.keys()].find((f) => /^templates\/.+\.json$/.test(f))!;
      files.set(tpl, new TextEncoder().encode(broken));
      const found = codes(files);
      expect(
        found.filter((c) => !c.startsWith(`${tpl} `)),
        broken,
      ).toEqual([]);
      expect(found.length, broken).toBeGreaterThan(0);
    }
  });
  it('is the one finding: an assets.json that does not parse leaves no asset file unused', () => {
    for (const broken of ['[{ "key": ', '{}']) {
      const files = starter();
      expect([...files.keys()].some((f) => f.startsWith('assets/'))).toBe(true);
      files.set('assets.json', new TextEncoder().encode(broken));
      const found = codes(files);
      expect(
        found.filter((c) => !c.startsWith('assets.json ')),
        broken,
      ).toEqual([]);
      expect(found.length, broken).toBeGreaterThan(0);
    }
  });
});

describe("a resource whose kind is its file's name", () => {
  it("has a finding about that kind placed at the resource, saying the kind is the file's name", () => {
    const files = unpackToFiles(fixture('valid/buyer-lead-starter.json'));
    files.set('resources/tags.json', files.get('resources/tag.json')!);
    files.delete('resources/tag.json');
    const built = buildFromFiles(files, { exportedAt: STAMP });
    const i = (built.pack!.resources as { kind: string }[]).findIndex((r) => r.kind === 'tags');
    expect(built.locate(`/resources/${i}/kind`)).toEqual({
      file: 'resources/tags.json',
      pointer: '/0',
      said: {
        note: "The source folder takes the resource's kind from its file's name, resources/tags.json.",
        hint: 'Name the file after the kind of the resources it holds (resources/tag.json), or write each resource\'s "kind" in resources/_unsorted.json.',
      },
    });
    // A kind written in the entry is where it is written.
    const own = unpackToFiles({ ...fixture('valid/buyer-lead-starter.json'), resources: [{ key: 'x', kind: 'tagz', name: 'X' }] });
    expect(buildFromFiles(own, { exportedAt: STAMP }).locate('/resources/0/kind')).toEqual({
      file: 'resources/_unsorted.json',
      pointer: '/0/kind',
    });
  });
});
