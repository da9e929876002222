// A fast-check generator of valid Setup Packs: every item kind and optional field, boundary values
// (3/4/6/8-digit colours, names and bodies at their maximum length, 200-block graphs, 50 stages,
// unicode, email images) and references to workspace items. Limits, enums, block kinds, their
// config fields and outputs are read from core (the published schemas and the node catalog), never
// restated here, so the generator follows the format when it changes.
import fc from 'fast-check';
import {
  analyseFlow,
  ASSET_ROLES,
  CREATABLE_REFERENCE_TYPES,
  MAX_DEPTH,
  MESSAGE_CHANNELS,
  NODE_CATALOG,
  publishedSchemas,
  RESOURCE_KINDS,
  RESOURCE_KIND_OF_REFERENCE,
  type Asset,
  type AutomationDocument,
  type AutomationItem,
  type AutomationSettings,
  type ConfigField,
  type GraphEdge,
  type GraphNode,
  type MessageTemplate,
  type Pack,
  type Pipeline,
  type PipelineStage,
  type Reference,
  type ReferenceType,
  type Resource,
  type SmartList,
  unstorableText,
} from '@setup-pack/core';
import { createHash } from 'node:crypto';

type Schema = {
  maxLength?: number;
  minLength?: number;
  maxItems?: number;
  minItems?: number;
  minimum?: number;
  maximum?: number;
  properties?: Record<string, Schema>;
  items?: Schema;
  $ref?: string;
};
const schemas = publishedSchemas as Record<string, Schema>;
const prop = (schema: string, name: string): Schema => {
  const p = schemas[schema]?.properties?.[name];
  if (!p) throw new Error(`testkit: schemas/${schema}.schema.json has no property ${name}`);
  return p;
};
const keyMax = (schemas.common as unknown as { $defs: { key: Schema } }).$defs.key.maxLength!;
const maxLen = (schema: string, name: string) => prop(schema, name).maxLength;
const maxItems = (schema: string, name: string) => prop(schema, name).maxItems;
const range = (schema: string, name: string) => ({ min: prop(schema, name).minimum!, max: prop(schema, name).maximum! });

/** The format's limits, as the schemas state them. */
export const LIMITS = {
  key: keyMax,
  packName: maxLen('pack', 'name')!,
  description: maxLen('pack', 'description')!,
  author: maxLen('pack', 'author')!,
  version: maxLen('pack', 'version')!,
  resourceName: maxLen('resource', 'name')!,
  templateName: maxLen('message-template', 'name')!,
  templateCategory: maxLen('message-template', 'category')!,
  templateSubject: maxLen('message-template', 'subject')!,
  templateBody: maxLen('message-template', 'body')!,
  listName: maxLen('smart-list', 'name')!,
  fileName: maxLen('asset', 'fileName')!,
  sourceUrl: maxLen('asset', 'sourceUrl')!,
  stages: maxItems('pipeline', 'stages')!,
  nodes: maxItems('graph', 'nodes')!,
  resources: maxItems('pack', 'resources')!,
  automations: maxItems('pack', 'automations')!,
  dailySendLimit: range('settings', 'daily_send_limit'),
  sendWindow: range('settings', 'send_window_start'),
  probability: range('stage', 'probability'),
} as const;

/** Text a workspace can store (core's rule: no NUL, no lone surrogate); packs with other text are refused at plan time. */
export const storable = (s: string) => unstorableText(s, '') === null;

/**
 * A string of `min`..`max` characters (code points, as JSON Schema counts them): mostly short
 * ASCII, some full unicode (astral characters included), and now and then exactly `max` long.
 */
export function text(min: number, max: number | undefined, opts: { singleLine?: boolean } = {}): fc.Arbitrary<string> {
  const cap = Math.min(max ?? 24, 24);
  const ok = (s: string) => storable(s) && (!opts.singleLine || !/[\r\n]/.test(s));
  const arbs: fc.WeightedArbitrary<string>[] = [
    { weight: 8, arbitrary: fc.string({ minLength: min, maxLength: Math.max(min, cap) }).filter(ok) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: min, maxLength: Math.max(min, Math.min(cap, 8)) }).filter(ok) },
  ];
  if (max !== undefined && max > 0) arbs.push({ weight: 1, arbitrary: fc.constantFrom('x', 'é', '界', '😀').map((c) => c.repeat(max)) });
  return fc.oneof(...arbs);
}

/** A name unlikely to meet a new workspace's own objects (its default stages, sources and pipeline). */
const itemName = (max: number | undefined) => text(1, max).filter((s) => s.trim().length > 0);

/** A colour as the format's hexColor pattern (schemas/common.schema.json) states it. */
export const hexColor = fc.stringMatching(
  new RegExp((publishedSchemas.common as { $defs: { hexColor: { pattern: string } } }).$defs.hexColor.pattern),
);

/**
 * The workspace objects a generated pack may refer to by name without carrying them: what the
 * workspace must hold for the pack to install (members, and the lookup-only types). Tests create
 * them (`externalObjects`); the names are the generator's, the types core's.
 */
export const EXTERNAL_NAMES: Partial<Record<ReferenceType, readonly string[]>> = {
  user: ['Jordan Lee', 'Avery Brooks'],
  team: ['Buyers team'],
  pond: ['Cold leads'],
  website: ['Main site'],
  form: ['Contact form'],
  appointment_type: ['Showing'],
  appointment_outcome: ['Offer made'],
  program: ['First-time buyers'],
  relationship_label: ['Spouse'],
};

/** Which keys an automation's configs can point at, by reference type. */
interface KeyPool {
  byType: Map<ReferenceType, string[]>;
  automationKeys: string[];
  /** Items the installer creates (creatable types the pack does not carry): one name per id. */
  created: Map<ReferenceType, Reference[]>;
}

const RESOURCE_KIND_LIST = RESOURCE_KINDS;

function resourceArb(): fc.Arbitrary<Omit<Resource, 'key'>> {
  return fc.constantFrom(...RESOURCE_KIND_LIST).chain((kind) =>
    fc.record(
      {
        kind: fc.constant(kind),
        name: itemName(LIMITS.resourceName),
        data: fc.oneof(
          { weight: 30, arbitrary: kind === 'tag' ? fc.record({ color: hexColor }, { requiredKeys: [] }) : jsonObject() },
          // As deep as the format lets resource data nest: the pack, its resources and the item hold it.
          { weight: 1, arbitrary: fc.constant(deepObject(MAX_DEPTH - 3)) },
        ),
      },
      { requiredKeys: ['kind', 'name'] },
    ),
  );
}

/** An object `levels` objects deep ({a: {a: … {leaf: true}}}). */
export function deepObject(levels: number): Record<string, unknown> {
  let v: Record<string, unknown> = { leaf: true };
  for (let i = 1; i < levels; i++) v = { a: v };
  return v;
}

/** Open JSON objects (resource data, brand fields, rich text, filter extras). */
export function jsonObject(depth = 2): fc.Arbitrary<Record<string, unknown>> {
  const key = fc.oneof(
    { weight: 12, arbitrary: fc.string({ minLength: 1, maxLength: 8 }).filter(storable) },
    { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype') },
  );
  const leaf = fc.oneof(
    fc.string({ maxLength: 10 }).filter(storable),
    fc.integer({ min: -1e6, max: 1e6 }),
    fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).filter((n) => !Object.is(n, -0)),
    fc.boolean(),
    fc.constant(null),
  );
  const value: fc.Arbitrary<unknown> =
    depth <= 0
      ? leaf
      : fc.oneof(
          { weight: 4, arbitrary: leaf },
          { weight: 1, arbitrary: fc.array(leaf, { maxLength: 3 }) },
          { weight: 1, arbitrary: jsonObject(depth - 1) },
        );
  return fc.dictionary(key, value, { maxKeys: 3 });
}

function templateArb(emailImageUrls: string[]): fc.Arbitrary<Omit<MessageTemplate, 'key'>> {
  const body = text(1, LIMITS.templateBody);
  const withImages = emailImageUrls.length
    ? fc
        .tuple(body, fc.subarray(emailImageUrls))
        .map(([b, urls]) => (urls.length ? `${b}${urls.map((u) => `<img src="${u}">`).join('')}`.slice(0, LIMITS.templateBody) : b))
    : body;
  return fc.record(
    {
      name: itemName(LIMITS.templateName),
      channel: fc.constantFrom(...MESSAGE_CHANNELS),
      category: text(0, LIMITS.templateCategory),
      subject: text(0, LIMITS.templateSubject, { singleLine: true }),
      body: withImages.filter((b) => storable(b) && [...b].length <= LIMITS.templateBody),
      richTextDoc: fc.oneof(fc.constant(null), jsonObject()),
    },
    { requiredKeys: ['name', 'channel', 'body'] },
  );
}

function stagesArb(): fc.Arbitrary<PipelineStage[]> {
  const stage = (stageType: PipelineStage['stageType'] | undefined) =>
    fc.record(
      {
        name: text(0, 40),
        color: hexColor,
        probability: fc.integer({ min: LIMITS.probability.min, max: LIMITS.probability.max }),
        stageType: stageType === undefined ? fc.constant(undefined) : fc.constant(stageType),
      },
      { requiredKeys: ['name'] },
    );
  const open = stage(undefined).chain((s) => fc.oneof(fc.constant(s), fc.constant({ ...s, stageType: 'OPEN' as const })));
  const size = fc.oneof({ weight: 9, arbitrary: fc.integer({ min: 0, max: 4 }) }, { weight: 1, arbitrary: fc.constant(LIMITS.stages - 2) });
  return fc
    .tuple(
      size.chain((n) => fc.array(open, { minLength: n, maxLength: n })),
      fc.array(stage('CLOSED_WON'), { minLength: 1, maxLength: 2 }),
      fc.array(stage('CLOSED_LOST'), { minLength: 1, maxLength: 2 }),
    )
    .chain(([opens, won, lost]) => {
      const all = [...opens, ...won, ...lost].slice(0, LIMITS.stages);
      // The won and lost stages come last in the pack's usual order; shuffle some of the time.
      return fc.shuffledSubarray(all, { minLength: all.length, maxLength: all.length }).chain((shuffled) => fc.constantFrom(all, shuffled));
    })
    .filter((stages) => stages.some((s) => s.stageType === 'CLOSED_WON') && stages.some((s) => s.stageType === 'CLOSED_LOST'))
    .map((stages) => {
      // Stage keys and names are unique within a pipeline (the format's rule): number repeats.
      const names = new Set<string>();
      return stages.map((s, i) => {
        let name = s.name;
        for (let n = 2; names.has(name); n++) name = `${s.name} ${n}`;
        names.add(name);
        const out: PipelineStage = { key: `s${i}`, name };
        if (s.color !== undefined) out.color = s.color;
        if (s.probability !== undefined) out.probability = s.probability;
        if (s.stageType !== undefined) out.stageType = s.stageType;
        return out;
      });
    });
}

function pipelineArb(): fc.Arbitrary<Omit<Pipeline, 'key'>> {
  return fc.record({ name: itemName(undefined), description: text(0, 60), stages: stagesArb() }, { requiredKeys: ['name', 'stages'] });
}

/** A filter document in the shape docs/filters.md describes; values sometimes name pack resources. */
function filterArb(resourceKeys: string[]): fc.Arbitrary<SmartList['filters']> {
  const value = resourceKeys.length
    ? fc.oneof(fc.constantFrom(...resourceKeys), fc.string({ maxLength: 10 }).filter(storable), fc.integer())
    : fc.oneof(fc.string({ maxLength: 10 }).filter(storable), fc.integer());
  const condition = fc.record({
    type: fc.constant('condition'),
    field: fc.constantFrom('tags', 'stage', 'lead_source', 'city', 'price'),
    operator: fc.constantFrom('includes', 'equals', 'gt'),
    value,
  });
  const node: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
    { weight: 3, arbitrary: condition },
    {
      weight: 1,
      arbitrary: fc.record({ type: fc.constantFrom('and', 'or'), children: fc.array(condition, { minLength: 1, maxLength: 3 }) }),
    },
    { weight: 1, arbitrary: fc.record({ type: fc.constant('not'), child: condition }) },
  );
  return node.map((root) => ({ version: 2 as const, root }));
}

function smartListArb(resourceKeys: string[]): fc.Arbitrary<Omit<SmartList, 'key'>> {
  return fc.record(
    { name: itemName(LIMITS.listName), description: text(0, 60), filters: filterArb(resourceKeys), color: hexColor, icon: text(0, 12) },
    { requiredKeys: ['name', 'filters'] },
  );
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** Assets: bytes embedded (some email images a template shows), or a public address only. */
function assetsArb(): fc.Arbitrary<Asset[]> {
  const one = fc.record({
    role: fc.constantFrom(...ASSET_ROLES),
    fileName: text(1, LIMITS.fileName).filter((s) => s.trim().length > 0),
    // Any string is a mime type to the format: empty and long ones too.
    mimeType: fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom('image/png', 'image/jpeg', 'image/svg+xml', 'application/pdf', 'application/octet-stream') },
      { weight: 1, arbitrary: fc.constantFrom('', `application/${'x'.repeat(300)}`) },
    ),
    bytes: fc.uint8Array({ minLength: 0, maxLength: 96 }),
    embed: fc.boolean(),
    staged: fc.boolean(),
  });
  const assetKey = fc.oneof(
    { weight: 12, arbitrary: fc.stringMatching(/^[a-z][a-z0-9-]{0,11}$/) },
    { weight: 1, arbitrary: fc.constantFrom('constructor', '__proto__', 'toString') },
  );
  return fc.uniqueArray(fc.tuple(assetKey, one), { maxLength: 3, selector: ([k]) => k }).map((list) =>
    list.map(([key, a], i): Asset => {
      const asset: Asset = {
        key,
        role: a.role,
        fileName: a.fileName,
        mimeType: a.mimeType,
        byteSize: a.bytes.length,
        sha256: sha256(a.bytes),
      };
      if (a.embed || a.role === 'email_image') asset.data = Buffer.from(a.bytes).toString('base64');
      else asset.url = `https://cdn.example.com/files/${i}/${encodeURIComponent(key)}`;
      if (a.staged) asset.stagedFileId = `stg_${i}`;
      if (a.role === 'email_image') asset.sourceUrl = `https://cdn.example.com/email/${i}/${encodeURIComponent(key)}.png`;
      return asset;
    }),
  );
}

function settingsArb(): fc.Arbitrary<AutomationSettings | null> {
  const base = fc.record({
    allow_reenrollment: fc.boolean(),
    stop_on_reply: fc.boolean(),
    daily_send_limit: fc.oneof(fc.integer(LIMITS.dailySendLimit), fc.constantFrom(LIMITS.dailySendLimit.min, LIMITS.dailySendLimit.max)),
  });
  const window = fc
    .tuple(fc.integer(LIMITS.sendWindow), fc.integer(LIMITS.sendWindow))
    .filter(([a, b]) => a !== b)
    .map(([send_window_start, send_window_end]) => ({ send_window_start, send_window_end }));
  const days = fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 7 });
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(null) },
    {
      weight: 4,
      arbitrary: fc.tuple(base, fc.option(window), fc.option(days), fc.option(fc.boolean())).map(([b, w, d, h]) => ({
        ...b,
        ...(w ?? {}),
        ...(d ? { send_window_days: d } : {}),
        ...(h === null ? {} : { send_window_skip_holidays: h }),
      })),
    },
  );
}

/** A value for a config field of the catalog's type; refs come from the pool or name workspace objects. */
function fieldValue(field: ConfigField, pool: KeyPool): fc.Arbitrary<{ value: unknown; refs: Reference[] }> {
  const plain = (a: fc.Arbitrary<unknown>) => a.map((value) => ({ value, refs: [] as Reference[] }));
  switch (field.type) {
    case 'string':
    case 'text':
      return plain(text(0, 40));
    case 'integer':
      return plain(fc.integer({ min: 0, max: 1000 }));
    case 'number':
      return plain(fc.integer({ min: 0, max: 1000 }));
    case 'boolean':
      return plain(fc.boolean());
    case 'enum':
      return plain(fc.constantFrom(...(field.values ?? ['x'])));
    case 'strings':
      return plain(fc.uniqueArray(fc.stringMatching(/^[a-z]{1,8}$/), { minLength: 1, maxLength: 3 }));
    case 'object':
      return plain(jsonObject(1));
    case 'any':
      return plain(fc.oneof(fc.string({ maxLength: 10 }).filter(storable), fc.integer(), fc.boolean()));
    case 'ref':
      return refArb(field.ref!, pool).map((r) => ({ value: r.id, refs: [r] }));
    case 'refs':
      return fc.array(refArb(field.ref!, pool), { minLength: 1, maxLength: 2 }).map((rs) => ({ value: rs.map((r) => r.id), refs: rs }));
  }
}

/** Marks a reference to a pack key the block writes without the automation listing it. */
const UNLISTED = Symbol('unlisted');

/**
 * A reference of `type`: a pack key of that type when the pack has one, a creatable item the
 * installer makes (tag, stage, lead source, custom field) named here, or a workspace object the
 * workspace holds (EXTERNAL_NAMES). Never one the workspace could not bind.
 */
function refArb(type: ReferenceType, pool: KeyPool): fc.Arbitrary<Reference> {
  const keys = type === 'automation' ? pool.automationKeys : (pool.byType.get(type) ?? []);
  const options: fc.Arbitrary<Reference>[] = [];
  // A pack key; its name is optional (it resolves inside the pack), and so is listing it: items
  // refer to each other by key, listed in the automation's references or not (UNLISTED).
  if (keys.length) {
    options.push(
      fc.tuple(fc.constantFrom(...keys), fc.option(text(1, 20), { nil: undefined }), fc.boolean()).map(([id, name, listed]) => {
        const r: Reference = name === undefined ? { type, id } : { type, id, name };
        return listed ? r : Object.assign(r, { [UNLISTED]: true });
      }),
    );
  }
  const withDetail = (arb: fc.Arbitrary<Reference>) =>
    fc.tuple(arb, fc.option(text(0, 30), { nil: undefined, freq: 4 })).map(([r, detail]) => (detail === undefined ? r : { ...r, detail }));
  const created = pool.created.get(type) ?? [];
  if (created.length) options.push(fc.constantFrom(...created));
  const external = EXTERNAL_NAMES[type];
  if (external)
    options.push(
      fc.constantFrom(...external).map((name) => ({ type, id: `${type}-${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`, name })),
    );
  if (!options.length) return fc.constant(undefined as unknown as Reference);
  return withDetail(fc.oneof(...options));
}

function nodeConfig(kind: string, pool: KeyPool): fc.Arbitrary<{ config?: Record<string, unknown>; refs: Reference[] }> {
  const info = NODE_CATALOG.get(kind)!;
  const fields = info.fields.filter((f) => {
    // A ref field the workspace could not bind is left out (its type has no pack key, is not
    // creatable and names no workspace object the tests create).
    if (f.type !== 'ref' && f.type !== 'refs') return true;
    const t = f.ref!;
    const keys = t === 'automation' ? pool.automationKeys : (pool.byType.get(t) ?? []);
    return keys.length > 0 || (pool.created.get(t)?.length ?? 0) > 0 || EXTERNAL_NAMES[t] !== undefined;
  });
  if (!fields.length && info.fields.length === 0)
    return fc.option(fc.constant({}), { nil: undefined }).map((config) => ({ config, refs: [] }));
  const entries = fields.map((f) => fc.tuple(fc.constant(f), f.required ? fc.constant(true) : fc.boolean()));
  return fc.tuple(...entries).chain((chosen) => {
    const used = chosen.filter(([, on]) => on).map(([f]) => f);
    return fc.tuple(...used.map((f) => fieldValue(f, pool))).map((values) => {
      const config: Record<string, unknown> = {};
      const refs: Reference[] = [];
      used.forEach((f, i) => {
        if (values[i].value !== undefined) config[f.name] = values[i].value;
        refs.push(...values[i].refs.filter(Boolean));
      });
      return { config, refs };
    });
  });
}

const TRIGGERS = [...NODE_CATALOG.values()].filter((k) => k.group === 'trigger').map((k) => k.kind);
const STEPS = [...NODE_CATALOG.values()].filter((k) => k.group !== 'trigger').map((k) => k.kind);

/**
 * An acyclic graph: nodes in a random order that is also a topological order; edges only go
 * forward, never into a trigger, through handles the source's kind has (ai_branch outcomes come
 * from its config); node 0 is a trigger.
 */
function graphArb(pool: KeyPool): fc.Arbitrary<{ nodes: GraphNode[]; edges: GraphEdge[]; refs: Reference[] }> {
  const count = fc.oneof({ weight: 12, arbitrary: fc.integer({ min: 1, max: 7 }) }, { weight: 1, arbitrary: fc.constant(LIMITS.nodes) });
  return count.chain((n) => {
    const kinds = fc.tuple(
      fc.constantFrom(...TRIGGERS),
      fc.array(fc.oneof({ weight: 1, arbitrary: fc.constantFrom(...TRIGGERS) }, { weight: 6, arbitrary: fc.constantFrom(...STEPS) }), {
        minLength: n - 1,
        maxLength: n - 1,
      }),
    );
    return kinds.chain(([first, rest]) => {
      const all = [first, ...rest];
      // Big graphs keep configs small so a 200-block pack stays quick to generate and install.
      const configs = fc.tuple(
        ...all.map((k) => (n > 20 ? fc.constant({ config: undefined, refs: [] as Reference[] }) : nodeConfig(k, pool))),
      );
      return fc
        .tuple(configs, fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat()), { maxLength: Math.min(3 * n, 300) }))
        .map(([cfgs, wires]) => {
          const nodes: GraphNode[] = all.map((kind, i) => {
            const node: GraphNode = { id: `n${i}`, kind, position: { x: (i % 10) * 240, y: Math.floor(i / 10) * 120 } };
            const c = cfgs[i].config;
            if (kind === 'control.ai_branch') node.config = { ...(c ?? {}), outcomes: ['yes', 'no'] };
            else if (c !== undefined) node.config = c;
            return node;
          });
          const edges: GraphEdge[] = [];
          const seen = new Set<string>();
          const isTrigger = (i: number) => all[i].startsWith('trigger.');
          // Each non-trigger node hangs off an earlier one, so every node is reachable.
          const link = (s: number, t: number, pick: number) => {
            const outs = NODE_CATALOG.get(all[s])!.outputs;
            const handles = outs === 'dynamic' ? ['yes', 'no'] : [...outs];
            const handle = handles[pick % handles.length];
            const k = `${s}>${t}>${handle}`;
            if (seen.has(k)) return;
            seen.add(k);
            const e: GraphEdge = { id: `e${edges.length}`, source: `n${s}`, target: `n${t}` };
            if (handle !== 'next' || pick % 2 === 1) e.handle = handle;
            edges.push(e);
          };
          for (let t = 1; t < n; t++) if (!isTrigger(t)) link(wires[t]?.[0] !== undefined ? wires[t][0] % t : t - 1, t, wires[t]?.[2] ?? 0);
          for (const [a, b, h] of wires) {
            if (n < 2) break;
            const s = a % n;
            const t = b % n;
            if (s < t && !isTrigger(t)) link(s, t, h);
          }
          return { nodes, edges, refs: cfgs.flatMap((c) => c.refs) };
        });
    });
  });
}

function automationArb(pool: KeyPool): fc.Arbitrary<AutomationDocument> {
  return fc
    .record({
      name: itemName(undefined),
      description: fc.option(text(0, 60), { nil: undefined }),
      category: fc.option(text(0, 20), { nil: undefined }),
      exported_at: fc.option(
        fc.date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
        { nil: undefined, freq: 4 },
      ),
      graph: graphArb(pool),
      settings: fc.option(settingsArb(), { nil: undefined }),
      extraRefs: fc.boolean(),
    })
    .map(({ name, description, category, exported_at, graph, settings, extraRefs }) => {
      const doc: AutomationDocument = {
        format: 'service.automation-template',
        version: 1,
        name,
        graph: { nodes: graph.nodes, edges: graph.edges },
      };
      if (description !== undefined) doc.description = description;
      if (category !== undefined) doc.category = category;
      if (exported_at !== undefined) doc.exported_at = exported_at;
      if (settings !== undefined) doc.settings = settings;
      // Each reference once (type and id); a pack key keeps the name of its first mention.
      const refs = new Map<string, Reference>();
      for (const r of graph.refs) if (!(UNLISTED in r) && !refs.has(`${r.type}:${r.id}`)) refs.set(`${r.type}:${r.id}`, r);
      if (refs.size || extraRefs) doc.references = [...refs.values()];
      return doc;
    });
}

export interface ValidPackOptions {
  /** Most items of each kind (default 4; resources twice that). */
  maxItems?: number;
}

/**
 * Packs that satisfy every rule of the format (core reports 0 errors; warnings may remain, as
 * they do in real packs), and install into a workspace holding EXTERNAL_NAMES.
 */
export function validPack(options: ValidPackOptions = {}): fc.Arbitrary<Pack> {
  const max = options.maxItems ?? 4;
  // Now and then a key that is also a name on Object.prototype: keys are data, never properties to look up.
  const keyArb = fc.oneof(
    { weight: 12, arbitrary: text(1, LIMITS.key) },
    { weight: 1, arbitrary: fc.constantFrom('constructor', '__proto__', 'toString', 'hasOwnProperty') },
  );
  const createdArb = fc.tuple(
    ...CREATABLE_REFERENCE_TYPES.map((type) =>
      fc
        .uniqueArray(itemName(40), { maxLength: 2, selector: (n) => n.trim().toLowerCase() })
        .map((names) => names.map((name, i): Reference => ({ type, id: `new-${type}-${i}`, name }))),
    ),
  );
  const keyed = <T>(arb: fc.Arbitrary<T>, n: number) =>
    fc.uniqueArray(fc.tuple(keyArb, arb), { maxLength: n, selector: ([k]) => k }).map((l) => l.map(([key, v]) => ({ key, ...v })));
  return fc
    .record({
      format: fc.constant('service.setup-pack' as const),
      packId: fc.uuid(),
      name: itemName(LIMITS.packName),
      version: fc.oneof(
        fc.tuple(fc.nat(9), fc.nat(20), fc.nat(20)).map(([a, b, c]) => `${a}.${b}.${c}`),
        text(1, LIMITS.version),
      ),
      description: fc.option(text(0, LIMITS.description), { nil: undefined }),
      author: fc.option(text(0, LIMITS.author), { nil: undefined }),
      brand: fc.option(
        fc.tuple(itemName(40), jsonObject(1)).map(([name, rest]) => ({ ...rest, name })),
        { nil: undefined, freq: 3 },
      ),
      schemaVersion: fc.constantFrom(1, 2),
      $schema: fc.option(fc.constant('https://setup-pack.dev/schemas/pack.schema.json'), { nil: undefined }),
      resources: keyed(resourceArb(), 2 * max),
      pipelines: keyed(pipelineArb(), max),
      created: createdArb,
    })
    .chain((head) => {
      const brand = head.brand !== undefined;
      return assetsArb().chain((assets) => {
        const imageUrls = assets.filter((a) => a.role === 'email_image').map((a) => a.sourceUrl!);
        const resourceKeys = (head.resources as Resource[]).map((r) => r.key);
        return fc
          .record({
            messageTemplates: keyed(templateArb(imageUrls), max),
            smartLists: keyed(smartListArb(resourceKeys), max),
            automationKeys: fc.uniqueArray(keyArb, { maxLength: max }),
          })
          .chain(({ messageTemplates, smartLists, automationKeys }) => {
            const { created, ...fields } = head;
            const pack = { ...fields, assets } as unknown as Pack;
            pack.messageTemplates = messageTemplates;
            pack.smartLists = smartLists;
            const byType = new Map<ReferenceType, string[]>();
            const add = (t: ReferenceType, k: string) => byType.set(t, [...(byType.get(t) ?? []), k]);
            for (const r of pack.resources ?? [])
              for (const [t, kind] of Object.entries(RESOURCE_KIND_OF_REFERENCE)) if (kind === r.kind) add(t as ReferenceType, r.key);
            for (const t of pack.messageTemplates) add('email_template', t.key);
            for (const l of pack.smartLists) add('smart_list', l.key);
            for (const p of pack.pipelines ?? []) {
              add('pipeline', p.key);
              for (const s of p.stages) if (!(byType.get('deal_stage') ?? []).includes(s.key)) add('deal_stage', s.key);
            }
            const sorted = [...automationKeys].sort();
            const pool: KeyPool = {
              byType,
              automationKeys: sorted,
              created: new Map(created.map((refs, i) => [CREATABLE_REFERENCE_TYPES[i], refs])),
            };
            return fc.tuple(...sorted.map(() => automationArb(pool))).map((docs) => {
              pack.automations = sorted.map((key, i): AutomationItem => ({ key, document: docs[i] }));
              return finish(pack, brand);
            });
          });
      });
    });
}

/** Drops optional fields left undefined and settles what one field decides for another. */
function finish(pack: Pack, brand: boolean): Pack {
  const out = JSON.parse(JSON.stringify(pack)) as Pack & { brand?: unknown; schemaVersion: number };
  if (brand) out.schemaVersion = 2; // schemaVersion 1 is only for a pack without a brand
  for (const k of ['resources', 'pipelines', 'messageTemplates', 'smartLists', 'automations', 'assets'] as const) {
    if (Array.isArray(out[k]) && out[k].length === 0 && k !== 'assets') delete out[k];
  }
  breakEndlessLoops(out);
  return out;
}

/**
 * Random blocks and triggers often start one another (a block that opens a transaction in an
 * automation that starts on one): where nothing would stop a contact going round, which core
 * reports as an error (flow/cascade-loop, flow/self-trigger), re-enrollment is turned off on the
 * automations of the loop, so the pack stays valid and the loop a warning.
 */
function breakEndlessLoops(pack: Pack): void {
  if (!pack.automations?.length) return;
  const { loops, selfStarts } = analyseFlow(pack);
  const members = new Set([...loops.flatMap((l) => l.members), ...selfStarts.map((edges) => edges[0].from)]);
  for (const i of members) {
    const s = pack.automations[i].document.settings;
    if (s?.allow_reenrollment) s.allow_reenrollment = false;
  }
}
