import type { FastifyPluginAsync } from 'fastify';
import { addNote, listActivities } from '../activities/store.js';
import { createContact, rememberContactText } from './create.js';
import { listContactsJson } from './list.js';
import { deleteContact, getContact, setContactTag, updateContact } from './store.js';
import type { RouteDeps } from '../../http/context.js';
import { callerOf } from '../workspaces/caller.js';
import { typed, type TypedApp } from '../../http/typed.js';
import {
  listOf,
  nid,
  nline,
  nnotes,
  nparagraph,
  nstr,
  ntext,
  pagingQuery,
  ref,
  str,
  text,
  TEXT_LIMITS,
  timeFilterQuery,
} from '../../http/schemas.js';

const row = (labels: string[]) =>
  ({
    type: 'object',
    additionalProperties: false,
    required: ['value', 'label'],
    properties: {
      value: { type: 'string', minLength: 1, maxLength: TEXT_LIMITS.line },
      label: { type: 'string', enum: labels },
      id: nid,
      is_primary: { type: ['boolean', 'null'] },
      position: { type: ['integer', 'null'] },
    },
  }) as const;

const contactFields = {
  first_name: { ...ntext, maxLength: TEXT_LIMITS.line },
  last_name: { ...ntext, maxLength: TEXT_LIMITS.line },
  email: nline,
  phone: nline,
  emails: { type: ['array', 'null'], items: row(['Home', 'Work', 'Other']) },
  phones: { type: ['array', 'null'], items: row(['Mobile', 'Home', 'Work', 'Fax', 'Other']) },
  address: nparagraph,
  city: nline,
  state: nline,
  zip_code: nline,
  company: nline,
  job_title: nline,
  notes: nnotes,
  stage_id: nid,
  lead_source_id: nid,
  owner_id: nid,
  custom_fields: { type: ['object', 'null'], additionalProperties: true },
} as const;

const createBody = {
  type: 'object',
  additionalProperties: false,
  required: ['first_name', 'last_name'],
  properties: {
    ...contactFields,
    // Required, and so not null: PATCH's field with creation's type.
    first_name: { ...contactFields.first_name, ...text },
    last_name: { ...contactFields.last_name, ...text },
    affiliate_attribution_token: { ...nstr, maxLength: TEXT_LIMITS.token },
    // The spec's body table spells it this way while its prose says _token: accept both.
    affiliate_attribution_tokem: { ...nstr, maxLength: TEXT_LIMITS.token },
  },
} as const;

const updateBody = { type: 'object', additionalProperties: false, properties: contactFields } as const;

const contactParams = { type: 'object', required: ['contact_id'], properties: { contact_id: str } } as const;
const tagParams = { type: 'object', required: ['contact_id', 'tag_id'], properties: { contact_id: str, tag_id: str } } as const;

export const contactRoutes: FastifyPluginAsync<RouteDeps> = async (plugin, deps) => {
  const app = typed(plugin);
  contactRecordRoutes(app, deps);
  contactTimelineRoutes(app, deps);
};

/** A contact itself: list, create, get, update, delete. */
function contactRecordRoutes(app: TypedApp, { db, clock }: RouteDeps): void {
  app.get(
    '/v1/contacts',
    {
      config: { scope: 'read_contacts', authInStatement: true },
      schema: {
        summary: 'List contacts, newest first',
        tags: ['contacts'],
        querystring: {
          type: 'object',
          properties: {
            ...pagingQuery,
            q: str,
            stage_id: str,
            lead_source_id: str,
            owner_id: str,
            tag_id: str,
            email: str,
            ...timeFilterQuery,
          },
        },
        response: { 200: listOf(ref('Contact')) },
      },
    },
    async (req, reply) => {
      // The body is written by PostgreSQL (the same bytes the schema's serialiser would write).
      // Authenticated inside the page's statement when the key was admitted before (req.deferredAuth).
      const auth = req.deferredAuth;
      const body = await listContactsJson(db, auth ? auth.workspaceId : callerOf(req).workspace.id, req.query, auth);
      return reply.type('application/json; charset=utf-8').send(body);
    },
  );

  app.post(
    '/v1/contacts',
    {
      config: { scope: 'write_contacts', authInStatement: true, batched: true },
      schema: { summary: 'Create a contact', tags: ['contacts'], body: createBody, response: { 201: ref('Contact') } },
    },
    async (req, reply) => {
      const { affiliate_attribution_tokem, ...body } = req.body;
      const input = { ...body, affiliate_attribution_token: body.affiliate_attribution_token ?? affiliate_attribution_tokem };
      // Authenticated inside the creation's statement when the key was admitted before (req.deferredAuth).
      const auth = req.deferredAuth;
      const contact = await createContact(db, auth ? auth.workspaceId : callerOf(req).workspace.id, input, clock.now(), auth);
      // Serialised here by the route's own Contact serialiser, so the text cache gets the very bytes
      // a list would write for this contact.
      const text = reply.code(201).serialize(contact) as string;
      rememberContactText(db, contact, text);
      return reply.type('application/json; charset=utf-8').send(text);
    },
  );

  app.get(
    '/v1/contacts/:contact_id',
    {
      config: { scope: 'read_contacts', authInStatement: true },
      schema: { summary: 'Get a contact', tags: ['contacts'], params: contactParams, response: { 200: ref('Contact') } },
    },
    async (req) => {
      // Authenticated inside the read when the key was admitted before (req.deferredAuth).
      const auth = req.deferredAuth;
      return getContact(db, auth ? auth.workspaceId : callerOf(req).workspace.id, req.params.contact_id, auth);
    },
  );

  app.patch(
    '/v1/contacts/:contact_id',
    {
      config: { scope: 'write_contacts', authInStatement: true },
      schema: {
        summary: 'Update a contact (only fields present change)',
        tags: ['contacts'],
        params: contactParams,
        body: updateBody,
        response: { 200: ref('Contact') },
      },
    },
    async (req) => {
      // Authenticated inside the update's read when the key was admitted before (req.deferredAuth).
      const auth = req.deferredAuth;
      return updateContact(db, auth ? auth.workspaceId : callerOf(req).workspace.id, req.params.contact_id, req.body, clock.now(), auth);
    },
  );

  app.delete(
    '/v1/contacts/:contact_id',
    {
      config: { scope: 'write_contacts', authInStatement: true },
      schema: {
        summary: 'Delete a contact permanently (opt-outs are kept)',
        tags: ['contacts'],
        params: contactParams,
        response: { 200: { type: 'object', properties: { id: str, deleted: { type: 'boolean' } } } },
      },
    },
    async (req) => {
      // Authenticated inside the deletion's statement when the key was admitted before (req.deferredAuth).
      const auth = req.deferredAuth;
      return deleteContact(db, auth ? auth.workspaceId : callerOf(req).workspace.id, req.params.contact_id, clock.now(), auth);
    },
  );
}

/** What is added to a contact: its tags, and its timeline of activities and notes. */
function contactTimelineRoutes(app: TypedApp, { db, clock }: RouteDeps): void {
  app.put(
    '/v1/contacts/:contact_id/tags/:tag_id',
    {
      config: { scope: 'write_contacts' },
      schema: { summary: 'Add a workspace tag to a contact', tags: ['contacts'], params: tagParams, response: { 200: ref('Contact') } },
    },
    async (req) => {
      const p = req.params;
      return setContactTag(db, callerOf(req).workspace.id, p.contact_id, p.tag_id, true, clock.now());
    },
  );

  app.delete(
    '/v1/contacts/:contact_id/tags/:tag_id',
    {
      config: { scope: 'write_contacts' },
      schema: { summary: 'Remove a tag from a contact', tags: ['contacts'], params: tagParams, response: { 200: ref('Contact') } },
    },
    async (req) => {
      const p = req.params;
      return setContactTag(db, callerOf(req).workspace.id, p.contact_id, p.tag_id, false, clock.now());
    },
  );

  app.get(
    '/v1/contacts/:contact_id/activities',
    {
      config: { scope: 'read_contacts' },
      schema: {
        summary: "A contact's timeline, newest first",
        tags: ['activities'],
        params: contactParams,
        querystring: { type: 'object', properties: pagingQuery },
        response: { 200: listOf(ref('Activity')) },
      },
    },
    async (req) => {
      const { workspace, key } = callerOf(req);
      const q = req.query;
      return listActivities(db, workspace.id, req.params.contact_id, { ...q, viewerMemberId: key.created_by_member_id });
    },
  );

  app.post(
    '/v1/contacts/:contact_id/notes',
    {
      config: { scope: 'write_contacts', authInStatement: true },
      schema: {
        summary: 'Append a note to the timeline',
        tags: ['activities'],
        params: contactParams,
        body: { type: 'object', additionalProperties: false, required: ['body'], properties: { body: { ...text, maxLength: 10000 } } },
        response: { 201: ref('Activity') },
      },
    },
    async (req, reply) => {
      // Authenticated inside the note's statement when the key was admitted before (req.deferredAuth).
      const auth = req.deferredAuth;
      const note = await addNote(
        db,
        auth ? auth.workspaceId : callerOf(req).workspace.id,
        req.params.contact_id,
        req.body.body,
        clock.now(),
        auth,
      );
      return reply.code(201).send(note);
    },
  );
}
