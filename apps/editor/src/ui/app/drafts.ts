// The browser's store of unsaved work, one per page, shared by the startup restore, the autosave
// and the banner's "Discard and reload".
import { defaultDraftStore } from '../../model/autosave.js';

export const drafts = defaultDraftStore();

/** This page load, named in its drafts and in the note left when it is left (autosave.ts Leaving). */
export const PAGE =
  typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function' ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`;
