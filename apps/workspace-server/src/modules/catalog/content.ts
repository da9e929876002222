import { createHash } from 'node:crypto';
import {
  base64Length,
  COLLECTION_PATH,
  COLLECTIONS,
  type AutomationDocument,
  decodeStrictBase64,
  MESSAGE_CHANNELS,
  pointerParam,
  validateAutomationDocument,
  WORKSPACE_LIMITS,
} from '@setup-pack/core';
import type { FastifyPluginAsync } from 'fastify';
import { createOnce, deleteObject, findObject, getObject, insertObject, listObjects, updateObject, type CatalogObject } from './store.js';
import { ApiError, badRequest, invalidField } from '../../shared/errors.js';
import { newCollectionId } from '../../shared/ids.js';
import type { Db } from '../../db/db.js';
import { type RouteDeps, sendCreated } from '../../http/context.js';
import { callerOf } from '../workspaces/caller.js';
import { anyObject, catalogObjectRequired, deleted, idempotencyKey, idParams, nullableObject } from './resources.js';
import { listOf, nstr, pagingQuery, str, ts } from '../../http/schemas.js';
import { nullable, packRef } from '../../shared/pack-schemas.js';
import { typed, type BodyOf, type RequestType, type TypedApp } from '../../http/typed.js';

const id = (req: { params: { id: string } }) => req.params.id;
const query = { type: 'object', properties: pagingQuery } as const;

/**
 * What the list, read and delete routes of a catalog collection say of it: those routes are the
 * same for every collection but for these words, so each collection's routes state only these.
 */
interface CollectionRoutes {
  collection: 'message_templates' | 'smart_lists' | 'automations' | 'media';
  /** The object as answered. */
  item: object;
  /** The list's summary begins with it ("Message templates"). */
  plural: string;
  /** One object, as summaries and errors name it ("message template"), and its article. */
  what: string;
  article: 'a' | 'an';
  /** The scopes of which any one reads it, when read_<collection> is not the only one. */
  readScope?: string[];
}

const readScopeOf = (c: CollectionRoutes) => c.readScope ?? `read_${c.collection}`;

/** GET <path>: the collection, newest first, a page at a time. */
function listRoute(app: TypedApp, db: Db, c: CollectionRoutes): void {
  app.get(
    COLLECTION_PATH[c.collection],
    {
      config: { scope: readScopeOf(c) },
      schema: { summary: `${c.plural}, newest first`, tags: ['catalog'], querystring: query, response: { 200: listOf(c.item) } },
    },
    async (req) => listObjects(db, callerOf(req).workspace.id, c.collection, req.query.limit, req.query.cursor),
  );
}

/** GET <path>/:id: one object. */
function readRoute(app: TypedApp, db: Db, c: CollectionRoutes): void {
  app.get(
    `${COLLECTION_PATH[c.collection]}/:id`,
    {
      config: { scope: readScopeOf(c) },
      schema: { summary: `${c.article === 'an' ? 'An' : 'A'} ${c.what}`, tags: ['catalog'], params: idParams, response: { 200: c.item } },
    },
    async (req) => getObject(db, callerOf(req).workspace.id, c.collection, id(req), c.what),
  );
}

/** DELETE <path>/:id. */
function deleteRoute(app: TypedApp, db: Db, c: CollectionRoutes): void {
  app.delete(
    `${COLLECTION_PATH[c.collection]}/:id`,
    {
      config: { scope: `write_${c.collection}` },
      schema: { summary: `Delete ${c.article} ${c.what}`, tags: ['catalog'], params: idParams, response: { 200: deleted } },
    },
    async (req) => deleteObject(db, callerOf(req).workspace.id, c.collection, id(req), c.what),
  );
}

/** A catalog object's name and fields, as a body writes them. */
interface Written {
  name: string;
  data: Record<string, unknown>;
}

/**
 * POST <path>: a new object of the collection, made once per idempotency key. `written` reads the
 * body (of schema `body`): the object's name and fields, and the key.
 */
function createRoute<S>(
  app: TypedApp,
  { db, clock }: RouteDeps,
  c: CollectionRoutes,
  body: S,
  written: (b: BodyOf<S>) => Written & { idempotencyKey: string | null | undefined },
): void {
  app.post(
    COLLECTION_PATH[c.collection],
    {
      config: { scope: `write_${c.collection}` },
      schema: {
        summary: `Create ${c.article} ${c.what} (idempotent with idempotency_key)`,
        tags: ['catalog'],
        body,
        response: { 201: c.item },
      },
    },
    async (req, reply) => {
      const ws = callerOf(req).workspace.id;
      const w = written(req.body);
      const created = await createOnce(
        db,
        ws,
        c.collection,
        w.idempotencyKey,
        clock.now(),
        (tx) => insertObject(tx, ws, c.collection, w.name, w.data, clock.now()),
        (tx, oid) => findObject(tx, ws, c.collection, oid),
      );
      return sendCreated(reply, created);
    },
  );
}

/** PATCH <path>/:id: `written` reads the body (of schema `body`) over the object it changes. */
function updateRoute<S>(
  app: TypedApp,
  { db, clock }: RouteDeps,
  c: CollectionRoutes,
  body: S,
  written: (b: BodyOf<S>, cur: CatalogObject) => Written,
): void {
  app.patch(
    `${COLLECTION_PATH[c.collection]}/:id`,
    {
      config: { scope: `write_${c.collection}` },
      schema: { summary: `Update ${c.article} ${c.what}`, tags: ['catalog'], params: idParams, body, response: { 200: c.item } },
    },
    async (req) => {
      const ws = callerOf(req).workspace.id;
      const cur = await getObject(db, ws, c.collection, id(req), c.what);
      const w = written(req.body, cur);
      return updateObject(db, ws, c.collection, id(req), w.name, w.data, clock.now(), c.what);
    },
  );
}

/** Public address of a media library copy; fixed at upload, independent of the host it came through. */
export const MEDIA_BASE = 'https://media.workspace.example';

/**
 * An automation document must pass core's validation (errors only; warnings are the editor's
 * business). What passes is a document of the pack schema, which core's type is held to.
 */
function checkDocument(doc: unknown): asserts doc is AutomationDocument {
  const errors = validateAutomationDocument(doc).diagnostics.filter((d) => d.severity === 'error');
  if (errors.length) {
    const e = errors[0];
    throw badRequest(
      `Invalid automation document: ${e.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`,
      pointerParam(`/document${e.pointer}`),
    );
  }
}

/** The content a pack installs: the routes of each resource, registered in this order. */
export const catalogContentRoutes: FastifyPluginAsync<RouteDeps> = async (plugin, deps) => {
  const app = typed(plugin);
  messageTemplateRoutes(app, deps);
  smartListRoutes(app, deps);
  automationRoutes(app, deps);
  mediaRoutes(app, deps);
  brandRoutes(app, deps);
};

/** The message templates: the pack's templates and its email_template resources. */
function messageTemplateRoutes(app: TypedApp, deps: RouteDeps): void {
  // --- message templates -------------------------------------------------------------------
  const template = {
    type: 'object',
    required: catalogObjectRequired,
    properties: {
      id: str,
      name: str,
      channel: { type: 'string', enum: [...MESSAGE_CHANNELS] },
      category: nstr,
      subject: nstr,
      body: str,
      rich_text_doc: nullableObject,
      data: nullableObject,
      created_at: ts,
      updated_at: ts,
    },
  } as const;
  // The collection holds the pack's message templates and its email_template resources (a name
  // by the resource rule, an empty body, the design in data): a field takes either pack rule.
  const tpl = <F extends string>(field: F) => packRef('message-template', `/properties/${field}`);
  const templateFields = {
    name: { anyOf: [packRef('resource', '/properties/name'), tpl('name')] },
    channel: tpl('channel'),
    category: nullable(tpl('category')),
    subject: nullable(tpl('subject')),
    body: { anyOf: [tpl('body'), { const: '' }] },
    rich_text_doc: nullableObject,
    data: nullableObject,
  } as const;
  const templatePatch = { type: 'object', additionalProperties: false, properties: templateFields } as const;
  const templateData = (b: RequestType<typeof templatePatch>, cur?: CatalogObject) => ({
    channel: b.channel ?? cur?.channel,
    category: b.category !== undefined ? b.category : (cur?.category ?? null),
    subject: b.subject !== undefined ? b.subject : (cur?.subject ?? null),
    body: b.body ?? cur?.body ?? '',
    rich_text_doc: b.rich_text_doc !== undefined ? b.rich_text_doc : (cur?.rich_text_doc ?? null),
    data: b.data !== undefined ? b.data : (cur?.data ?? null),
  });

  const templates: CollectionRoutes = {
    collection: 'message_templates',
    item: template,
    plural: 'Message templates',
    what: 'message template',
    article: 'a',
  };
  const templateCreate = {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'channel'],
    properties: { ...templateFields, idempotency_key: idempotencyKey },
  } as const;
  listRoute(app, deps.db, templates);
  readRoute(app, deps.db, templates);
  createRoute(app, deps, templates, templateCreate, (b) => ({
    name: b.name,
    data: templateData(b),
    idempotencyKey: b.idempotency_key,
  }));
  updateRoute(app, deps, templates, templatePatch, (b, cur) => ({ name: b.name ?? cur.name, data: templateData(b, cur) }));
  deleteRoute(app, deps.db, templates);
}

/** Smart lists. */
function smartListRoutes(app: TypedApp, deps: RouteDeps): void {
  // --- smart lists ---------------------------------------------------------------------------
  const smartList = {
    type: 'object',
    required: catalogObjectRequired,
    properties: { id: str, name: str, description: nstr, color: nstr, icon: nstr, filters: anyObject, created_at: ts, updated_at: ts },
  } as const;
  const listFields = {
    name: packRef('smart-list', '/properties/name'),
    description: nullable(packRef('smart-list', '/properties/description')),
    color: nullable(packRef('smart-list', '/properties/color')),
    icon: nullable(packRef('smart-list', '/properties/icon')),
    filters: packRef('smart-list', '/properties/filters'),
  } as const;
  const listPatch = { type: 'object', additionalProperties: false, properties: listFields } as const;
  const listData = (b: RequestType<typeof listPatch>, cur?: CatalogObject) => ({
    description: b.description !== undefined ? b.description : (cur?.description ?? null),
    color: b.color !== undefined ? b.color : (cur?.color ?? null),
    icon: b.icon !== undefined ? b.icon : (cur?.icon ?? null),
    filters: b.filters ?? cur?.filters,
  });
  const lists: CollectionRoutes = {
    collection: 'smart_lists',
    item: smartList,
    plural: 'Smart lists',
    what: 'smart list',
    article: 'a',
    readScope: ['read_smart_lists', 'read_contacts'],
  };
  const listCreate = {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'filters'],
    properties: { ...listFields, idempotency_key: idempotencyKey },
  } as const;
  listRoute(app, deps.db, lists);
  readRoute(app, deps.db, lists);
  createRoute(app, deps, lists, listCreate, (b) => ({
    name: b.name,
    data: listData(b),
    idempotencyKey: b.idempotency_key,
  }));
  updateRoute(app, deps, lists, listPatch, (b, cur) => ({ name: b.name ?? cur.name, data: listData(b, cur) }));
  deleteRoute(app, deps.db, lists);
}

// An automation as answered. `document` is the current version: the live one while the automation
// is on. An API update of an automation that is on stages `draft_document` and leaves the live
// version running.
const automation = {
  type: 'object',
  required: catalogObjectRequired,
  properties: {
    id: str,
    name: str,
    status: { type: 'string', enum: ['off', 'on'] },
    enabled: { type: 'boolean' },
    document: anyObject,
    draft_document: nullableObject,
    created_at: ts,
    updated_at: ts,
  },
} as const;
const automationData = (o: { enabled: boolean; document: unknown; draft_document: unknown }) => ({
  ...o,
  status: o.enabled ? 'on' : 'off',
});

/** Automations, their live and draft documents. */
function automationRoutes(app: TypedApp, { db, clock }: RouteDeps): void {
  const automations: CollectionRoutes = {
    collection: 'automations',
    item: automation,
    plural: 'Automations',
    what: 'automation',
    article: 'an',
  };
  listRoute(app, db, automations);
  readRoute(app, db, automations);
  app.post(
    COLLECTION_PATH.automations,
    {
      config: { scope: 'write_automations' },
      schema: {
        summary: 'Create an automation: always a draft that is off (idempotent with idempotency_key)',
        tags: ['catalog'],
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['document'],
          properties: { document: anyObject, idempotency_key: idempotencyKey },
        },
        response: { 201: automation },
      },
    },
    async (req, reply) => {
      const ws = callerOf(req).workspace.id;
      const { document, idempotency_key } = req.body;
      checkDocument(document);
      const created = await createOnce(
        db,
        ws,
        'automations',
        idempotency_key,
        clock.now(),
        (tx) =>
          insertObject(
            tx,
            ws,
            'automations',
            document.name,
            automationData({ enabled: false, document, draft_document: null }),
            clock.now(),
          ),
        (tx, oid) => findObject(tx, ws, 'automations', oid),
      );
      return sendCreated(reply, created);
    },
  );
  app.patch(
    `${COLLECTION_PATH.automations}/:id`,
    {
      config: { scope: 'write_automations' },
      schema: {
        summary: 'Update an automation; one that is on gets a staged draft and its live version keeps running',
        tags: ['catalog'],
        params: idParams,
        body: { type: 'object', additionalProperties: false, required: ['document'], properties: { document: anyObject } },
        response: { 200: automation },
      },
    },
    async (req) => {
      const ws = callerOf(req).workspace.id;
      const b = req.body;
      checkDocument(b.document);
      const cur = await getObject(db, ws, 'automations', id(req), 'automation');
      const data = cur.enabled
        ? automationData({ enabled: true, document: cur.document, draft_document: b.document })
        : automationData({ enabled: false, document: b.document, draft_document: null });
      return updateObject(db, ws, 'automations', id(req), cur.enabled ? cur.name : b.document.name, data, clock.now(), 'automation');
    },
  );
  automationSwitchRoutes(app, { db, clock });
  deleteRoute(app, db, automations);
}

/** Turning an automation on and off: its live version and its draft move as the spec says. */
function automationSwitchRoutes(app: TypedApp, { db, clock }: RouteDeps): void {
  for (const [verb, on] of [
    ['activate', true],
    ['deactivate', false],
  ] as const) {
    app.post(
      `${COLLECTION_PATH.automations}/:id/${verb}`,
      {
        config: { scope: 'write_automations' },
        schema: {
          summary: on ? "Switch an automation on, publishing its staged draft (the dashboard's switch)" : 'Switch an automation off',
          tags: ['catalog'],
          params: idParams,
          response: { 200: automation },
        },
      },
      async (req) => {
        const ws = callerOf(req).workspace.id;
        const cur = await getObject(db, ws, 'automations', id(req), 'automation');
        const document = on ? (cur.draft_document ?? cur.document) : cur.document;
        const name = (document as { name?: string }).name ?? cur.name;
        return updateObject(
          db,
          ws,
          'automations',
          id(req),
          name,
          automationData({ enabled: on, document, draft_document: on ? null : (cur.draft_document ?? null) }),
          clock.now(),
          'automation',
        );
      },
    );
  }
}

// A media library file as answered, and the upload that makes or replaces one.
const media = {
  type: 'object',
  required: catalogObjectRequired,
  properties: {
    id: str,
    name: str,
    file_name: str,
    mime_type: str,
    byte_size: { type: 'integer' },
    sha256: str,
    url: str,
    created_at: ts,
    updated_at: ts,
  },
} as const;
const upload = {
  file_name: packRef('asset', '/properties/fileName'),
  // The asset's own rule (any string): a limit of the API's would fail a valid pack halfway.
  mime_type: packRef('asset', '/properties/mimeType'),
  data: {
    type: 'string',
    description: `Base64 contents, at most ${WORKSPACE_LIMITS.mediaFileBytes} bytes decoded`,
    maxLength: base64Length(WORKSPACE_LIMITS.mediaFileBytes),
  },
} as const;
// The pack's strictness (core's decodeStrictBase64): what validates as an asset uploads as one.
const decode = (data: string) => {
  const bytes = decodeStrictBase64(data);
  if (!bytes) throw invalidField('data', 'must be strict base64 (RFC 4648: padded, no whitespace, canonical)');
  return bytes;
};
const mediaData = (ws: string, oid: string, b: { file_name: string; mime_type: string; data: string }) => {
  const bytes = decode(b.data);
  return {
    file_name: b.file_name,
    mime_type: b.mime_type,
    byte_size: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    url: `${MEDIA_BASE}/${ws}/${oid}/${encodeURIComponent(b.file_name)}`,
    content: b.data,
  };
};
const strip = (o: CatalogObject) => {
  const { content: _content, ...rest } = o;
  return rest;
};

/** The media library: uploads, their content and replacements. */
function mediaRoutes(app: TypedApp, { db, clock }: RouteDeps): void {
  const files: CollectionRoutes = { collection: 'media', item: media, plural: 'Media library files', what: 'media file', article: 'a' };
  listRoute(app, db, files);
  app.get(
    `${COLLECTION_PATH.media}/:id/content`,
    {
      config: { scope: 'read_media' },
      schema: {
        summary: 'A media file with its contents (base64), for exporting it into a pack',
        tags: ['catalog'],
        params: idParams,
        response: {
          200: {
            type: 'object',
            required: catalogObjectRequired,
            properties: { ...media.properties, data: { type: 'string', description: 'Base64 contents' } },
          },
        },
      },
    },
    async (req) => {
      const { content, ...rest } = await getObject(db, callerOf(req).workspace.id, 'media', id(req), 'media file');
      return { ...rest, data: content };
    },
  );
  app.post(
    COLLECTION_PATH.media,
    {
      config: { scope: 'write_media' },
      schema: {
        summary: "Upload a file to the media library; returns the copy's public address (idempotent with idempotency_key)",
        tags: ['catalog'],
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['file_name', 'mime_type', 'data'],
          properties: { ...upload, idempotency_key: idempotencyKey },
        },
        response: { 201: media },
      },
    },
    async (req, reply) => {
      const ws = callerOf(req).workspace.id;
      const b = req.body;
      decode(b.data);
      const created = await createOnce(
        db,
        ws,
        'media',
        b.idempotency_key,
        clock.now(),
        (tx) => {
          const oid = newCollectionId('media');
          return insertObject(tx, ws, 'media', b.file_name, mediaData(ws, oid, b), clock.now(), oid);
        },
        (tx, oid) => findObject(tx, ws, 'media', oid),
      );
      return sendCreated(reply, created, strip);
    },
  );
  app.put(
    `${COLLECTION_PATH.media}/:id`,
    {
      config: { scope: 'write_media' },
      schema: {
        summary: "Replace a media file's contents; its address stays",
        tags: ['catalog'],
        params: idParams,
        body: { type: 'object', additionalProperties: false, required: ['file_name', 'mime_type', 'data'], properties: upload },
        response: { 200: media },
      },
    },
    async (req) => {
      const ws = callerOf(req).workspace.id;
      const cur = await getObject(db, ws, 'media', id(req), 'media file');
      const b = req.body;
      return strip(
        await updateObject(db, ws, 'media', id(req), b.file_name, { ...mediaData(ws, cur.id, b), url: cur.url }, clock.now(), 'media file'),
      );
    },
  );
  deleteRoute(app, db, files);
}

/** The brand, one per workspace. */
function brandRoutes(app: TypedApp, { db, clock }: RouteDeps): void {
  // --- brand (one per workspace) ---------------------------------------------------------------
  // Before a brand is set, GET answers one that was never stored: no created_at.
  const brand = {
    type: 'object',
    required: ['id', 'name', 'updated_at'],
    properties: { id: str, name: str, fields: nullableObject, asset_urls: nullableObject, updated_at: ts },
  } as const;
  const brandId = (ws: string) => `${COLLECTIONS.brand.idPrefix}_${ws}`;
  /**
   * The brand's images: an asset key of the pack (its key rule) to the image's address, as an
   * asset's public link is written (its url rule: a full https:// address; an upload's media url
   * is one), or "" for none (the address of a brand asset a pack gives neither bytes nor a link).
   * The pack schema's rules by $ref, never restated.
   */
  const assetUrls = {
    type: 'object',
    propertyNames: packRef('common', '/$defs/key'),
    additionalProperties: { type: 'string', anyOf: [packRef('asset', '/properties/url'), { const: '' }] },
  } as const;
  app.get(
    COLLECTION_PATH.brand,
    {
      config: { scope: 'read_brand' },
      schema: { summary: 'The workspace brand (fields null when none is set)', tags: ['catalog'], response: { 200: brand } },
    },
    async (req) => {
      const ws = callerOf(req).workspace.id;
      return (
        (await findObject(db, ws, 'brand', brandId(ws))) ?? {
          id: brandId(ws),
          name: '',
          fields: null,
          asset_urls: null,
          updated_at: clock.now().toISOString(),
        }
      );
    },
  );
  app.put(
    COLLECTION_PATH.brand,
    {
      config: { scope: 'write_brand' },
      schema: {
        summary: 'Set the workspace brand: open brand fields and the addresses of its images',
        tags: ['catalog'],
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['fields'],
          properties: { fields: anyObject, asset_urls: assetUrls },
        },
        response: { 200: brand },
      },
    },
    async (req) => {
      const ws = callerOf(req).workspace.id;
      const b = req.body;
      const data = { fields: b.fields, asset_urls: b.asset_urls ?? {} };
      const name = typeof b.fields.name === 'string' ? b.fields.name : 'Brand';
      const cur = await findObject(db, ws, 'brand', brandId(ws));
      return cur
        ? updateObject(db, ws, 'brand', cur.id, name, data, clock.now(), 'brand')
        : insertObject(db, ws, 'brand', name, data, clock.now(), brandId(ws));
    },
  );
  app.delete(
    COLLECTION_PATH.brand,
    {
      config: { scope: 'write_brand' },
      schema: { summary: 'Clear the workspace brand', tags: ['catalog'], response: { 200: deleted } },
    },
    async (req) => {
      const ws = callerOf(req).workspace.id;
      if (!(await findObject(db, ws, 'brand', brandId(ws)))) throw new ApiError(404, 'invalid_request_error', 'No brand is set', 'brand');
      return deleteObject(db, ws, 'brand', brandId(ws), 'brand');
    },
  );
}
