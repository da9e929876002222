// Random packs for the CLI's property tests (build/unpack round trips, fmt on source folders):
// item keys that stress file names, any text, assets with and without their bytes.
import fc from 'fast-check';
import { createHash } from 'node:crypto';

// Keys that stress file names: separators, dots, device names, case twins, long, non-ASCII.
export const keyArb = fc.oneof(
  fc.string({ minLength: 1, maxLength: 30 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }),
  fc.constantFrom(
    'CON',
    'nul.txt',
    'a/b',
    '../up',
    '.hidden',
    'trail.',
    'Foo',
    'foo',
    'FOO',
    '%41',
    '~x',
    'x'.repeat(200),
    'é'.repeat(120),
    '😀/%~',
    ' ',
  ),
);
const text = fc.string({ unit: 'binary', maxLength: 60 });
export const smallObject = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const compact = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
const items = <T extends { key: string }>(arb: fc.Arbitrary<T>) => opt(fc.uniqueArray(arb, { selector: (i) => i.key, maxLength: 5 }));

const assetArb = fc.oneof(
  fc
    .record({
      key: keyArb,
      role: fc.constantFrom('logo', 'email_image'),
      fileName: fc.oneof(fc.constantFrom('logo.png', 'LOGO.png', 'a b.jpg'), text),
      mimeType: fc.constant('image/png'),
      bytes: fc.uint8Array({ maxLength: 64 }),
      sourceUrl: opt(fc.oneof(fc.constant(null), text)),
    })
    .map(({ bytes, ...a }) => {
      const buf = Buffer.from(bytes);
      return compact({ ...a, byteSize: buf.length, sha256: createHash('sha256').update(buf).digest('hex'), data: buf.toString('base64') });
    }),
  fc
    .record({
      key: keyArb,
      role: fc.constant('logo'),
      fileName: text,
      mimeType: text,
      byteSize: fc.nat(),
      sha256: fc.string({ minLength: 64, maxLength: 64 }),
      data: opt(fc.oneof(fc.constant(null), text)),
      url: opt(fc.constant('https://example.com/x.png')),
    })
    .map(compact),
);

export const packArb = fc
  .record({
    $schema: opt(fc.constant('https://setup-pack.dev/schemas/pack.schema.json')),
    format: fc.constant('service.setup-pack'),
    schemaVersion: fc.constantFrom(1, 2),
    packId: fc.uuid(),
    name: text,
    description: opt(text),
    version: fc.constantFrom('1.0.0', '2.3.4-beta.1'),
    exportedAt: opt(fc.constant('2026-01-01T00:00:00Z')),
    automations: items(
      fc.record({
        key: keyArb,
        document: fc.record({
          format: fc.constant('service.automation-template'),
          version: fc.constant(1),
          name: text,
          graph: fc.record({ nodes: fc.array(fc.record({ id: text, kind: text, config: smallObject }), { maxLength: 3 }) }),
        }),
      }),
    ),
    smartLists: items(fc.record({ key: keyArb, name: text, filters: smallObject, color: opt(fc.constant('#ef4444')) }).map(compact)),
    messageTemplates: items(
      fc
        .record({
          key: keyArb,
          name: text,
          channel: fc.constantFrom('sms', 'email', 'both'),
          subject: opt(text),
          body: opt(
            fc.oneof(
              text,
              text.map((t) => `\uFEFF${t}`),
            ),
          ),
          richTextDoc: opt(fc.oneof(fc.constant(null), smallObject)),
        })
        .map(compact),
    ),
    pipelines: items(
      fc.record({
        key: keyArb,
        name: text,
        stages: fc.array(
          fc
            .record({ key: keyArb, name: text, probability: opt(fc.nat(100)), stageType: opt(fc.constantFrom('OPEN', 'CLOSED_WON')) })
            .map(compact),
          { maxLength: 3 },
        ),
      }),
    ),
    resources: items(
      fc
        .record({
          key: keyArb,
          kind: opt(fc.oneof(fc.constantFrom('tag', 'contact_stage', 'lead_source', 'custom_field', 'email_template'), text)),
          name: text,
          data: opt(smallObject),
        })
        .map(compact),
    ),
    brand: opt(fc.oneof(fc.constant(null), smallObject)),
    assets: opt(fc.uniqueArray(assetArb, { selector: (a) => a.key as string, maxLength: 4 })),
  })
  .map((p) => compact(p as Record<string, unknown>));

/** `v` with the keys of every object in an order of `seed`'s (a "__proto__" key stays a key). */
export function shuffled(v: unknown, seed: number): unknown {
  if (Array.isArray(v)) return v.map((x) => shuffled(x, seed));
  if (v === null || typeof v !== 'object') return v;
  const rank = new Map(Object.keys(v).map((k) => [k, createHash('md5').update(`${seed}\0${k}`).digest('hex')]));
  const out: Record<string, unknown> = {};
  for (const k of [...rank.keys()].sort((a, b) => (rank.get(a)! < rank.get(b)! ? -1 : 1)))
    Object.defineProperty(out, k, {
      value: shuffled((v as Record<string, unknown>)[k], seed),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out;
}
