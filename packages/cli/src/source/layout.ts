// The pack source folder: a layout that diffs well in git, and the compiler between it and a pack.
//
//   manifest.json                 top-level fields ($schema as packSchema); item lists hold keys, in pack order
//   automations/<key>.json        the automation document (the item's `document`)
//   smart-lists/<key>.json        a smart list without its key
//   pipelines/<key>.json          a pipeline without its key
//   templates/<key>.json          a message template without key and body
//   templates/<key>.html | .txt   its body, byte for byte (.txt for sms, .html otherwise)
//   resources/<kind>.json         resources of one kind: [{ key, name, data }]
//   assets.json                   asset metadata in order; `file` names a file under assets/
//   assets/<file>                 the asset's bytes (build computes data, byteSize, sha256)
//
// Everything here works on an in-memory file map, so it is testable without a disk.
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { strictBase64Bytes } from '../lib/hasher.js';
import {
  encodingProblem,
  hasLoneSurrogate,
  inCanonicalOrder,
  KEYED_ITEM_KINDS,
  parseJsonText,
  utf8Problem,
  parsePointer,
  RESOURCE_KINDS,
  setOwn,
  toPointer,
  type Diagnostic,
  type SourceText,
} from '@setup-pack/core';
import { stemsForKeys } from './names.js';

/** Relative posix path → contents. */
export type SourceFiles = Map<string, Uint8Array>;

export const MANIFEST = 'manifest.json';
export const ASSETS_INDEX = 'assets.json';
/**
 * The pack's `$schema` lives under this name in the manifest: the manifest is not a pack, so
 * its own `$schema` (if any) is left to editors and never copied into the pack.
 */
export const PACK_SCHEMA_FIELD = 'packSchema';

/** Item kinds kept one file per item: pack field → folder. */
const ITEM_FOLDERS = {
  automations: 'automations',
  smartLists: 'smart-lists',
  pipelines: 'pipelines',
  messageTemplates: 'templates',
} as const;
/** What one file of each item folder holds, in words. */
const ITEM_NOUNS: Record<string, string> = {
  automations: 'automation',
  'smart-lists': 'smart list',
  pipelines: 'pipeline',
  templates: 'message template',
};
/**
 * A note kept beside the item files (README.md, NOTES.txt, a CHANGELOG): no item file is one, so
 * build skips it as it skips a README at the folder's top, rather than asking for its key.
 */
const isNote = (name: string) => /\.(md|markdown)$/i.test(name) || /^(readme|notes?|changelog|license|licence)(\.[^.]*)?$/i.test(name);
type FolderKind = keyof typeof ITEM_FOLDERS;
/** The folders of JSON source files: each item kind's (one file per item) and resources/ (one per kind). */
export const JSON_SOURCE_FOLDERS: readonly string[] = [...Object.values(ITEM_FOLDERS), 'resources'];
/**
 * What a pack source folder holds at its top: `unpack --force` clears these, and a file belongs to
 * the folder when it is at its top or below one of these folders (a folder of built packs beside
 * them does not).
 */
export const LAYOUT_PATHS: readonly string[] = [MANIFEST, ASSETS_INDEX, ...JSON_SOURCE_FOLDERS, 'assets'];
/** Whether a path inside a source folder (/ separators) is the layout's: a file build reads, or would read once it is there. */
export const inLayout = (rel: string) => LAYOUT_PATHS.some((p) => rel === p || rel.startsWith(`${p}/`));
// The resource kinds, from core (which reads them from the schema).
const RESOURCE_KIND_SET: ReadonlySet<string> = new Set(RESOURCE_KINDS);
/** Resources whose kind cannot name a file keep their `kind` field here. */
const UNSORTED_RESOURCES = 'resources/_unsorted.json';

/** Diagnostic codes the compiler itself reports (core's codes cover the built pack). */
export const BUILD_RULES = [
  { code: 'build/missing-file', severity: 'error', description: 'Every key listed in manifest.json has its source file.' },
  {
    code: 'build/unlisted-file',
    severity: 'error',
    description: 'Every item file is listed in manifest.json, so nothing is left out by accident.',
  },
  {
    code: 'build/manifest',
    severity: 'error',
    description: 'manifest.json is an object whose item lists are arrays of unique string keys.',
  },
  {
    code: 'build/not-an-object',
    severity: 'error',
    description: 'An item source file holds a JSON object (resource files: an array of objects).',
  },
  { code: 'build/key-mismatch', severity: 'error', description: 'A key written inside an item file matches the key in manifest.json.' },
  {
    code: 'build/duplicate-body',
    severity: 'error',
    description: 'A template body is given once: in the .html or .txt file, or as "body" in its .json file.',
  },
  {
    code: 'build/duplicate-data',
    severity: 'error',
    description: 'An asset\'s bytes are given once: in the file its assets.json entry names ("file"), or as "data" in the entry.',
  },
  {
    code: 'build/asset-path',
    severity: 'error',
    description: 'An asset file path stays inside assets/ and names no file or folder starting with a dot (build ignores those).',
  },
  {
    code: 'build/not-utf8',
    severity: 'error',
    description: 'Every source file is UTF-8 text: other bytes would be replaced, and the characters lost, in the built pack.',
  },
  {
    code: 'build/broken-link',
    severity: 'error',
    description:
      'A symbolic link in the folder leads to a file: one that leads to nothing, or round in a loop, cannot be read, and build leaves no file of the folder out without a word.',
  },
  {
    code: 'build/not-a-file',
    severity: 'error',
    description:
      'What build reads in the folder is a file (or a link to one): a named pipe, a socket or a device is not read (reading one could wait forever or never end), and build leaves no file of the folder out without a word.',
  },
  {
    code: 'build/link-outside',
    severity: 'error',
    description:
      'A symbolic link in the folder leads to a file inside the repository holding it (or, outside any repository, inside the folder): build reads nothing from elsewhere.',
  },
  { code: 'build/unused-asset-file', severity: 'warning', description: 'Every file under assets/ is used by an entry in assets.json.' },
] as const;

/**
 * The file unpack writes a template's body in, beside its JSON file: .txt for an sms template,
 * .html otherwise (build reads either). `base` is the template's path without the extension.
 */
export const bodyFileOf = (base: string, channel: unknown) => `${base}.${channel === 'sms' ? 'txt' : 'html'}`;

/** The byte order mark: build reads it at the start of a source file as the file's encoding mark (the TextDecoder below drops it). */
const BOM = '\uFEFF';
const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const utf8 = new TextDecoder('utf-8');
/**
 * Why a source file is not UTF-8 text (core's utf8Problem, as a sentence about the file), or
 * undefined. Node's isUtf8 answers first, as the CLI's decodeText does: utf8Problem decodes the
 * whole file, which every file of a build would otherwise pay before it is decoded again.
 */
export function notUtf8(bytes: Uint8Array): string | undefined {
  if (isUtf8(bytes)) return undefined;
  const why = utf8Problem(bytes);
  return why && `The file ${why.replace(/^it /, '')}.`;
}
const encoder = new TextEncoder();

function without(obj: Record<string, unknown>, ...keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(obj))
    if (!keys.includes(k)) Object.defineProperty(out, k, { value: obj[k], enumerable: true, writable: true, configurable: true });
  return out;
}

// ---------------------------------------------------------------------------------------------
// Each JSON file's canonical form: what unpack writes, and what fmt rewrites a file into where it stands

/** What a JSON file of the layout holds, known from its path: the schema of an item kind's file, or one of the folder's own files. */
export type SourceRole = 'manifest' | 'assets' | 'resources' | (typeof ITEM_SCHEMAS)[FolderKind];

/** The published schema each item kind's file follows (an automation's file is its document). */
const ITEM_SCHEMAS = {
  automations: 'automation-document',
  smartLists: 'smart-list',
  pipelines: 'pipeline',
  messageTemplates: 'message-template',
} as const;
const FOLDER_KINDS: ReadonlyMap<string, FolderKind> = new Map(
  Object.entries(ITEM_FOLDERS).map(([kind, folder]) => [folder as string, kind as FolderKind]),
);
/** The lists of items a pack holds, which the manifest holds as lists of keys (assets: as assets.json). */
const ITEM_LISTS: ReadonlySet<string> = new Set([...KEYED_ITEM_KINDS, 'assets']);

/**
 * The role of the JSON file at `rel` (a posix path inside a source folder), or undefined for a file
 * build does not read as a JSON source: template bodies and asset bytes, top-level files such as a
 * README, anything deeper, and files whose name starts with a dot.
 */
export function sourceRole(rel: string): SourceRole | undefined {
  if (rel === MANIFEST) return 'manifest';
  if (rel === ASSETS_INDEX) return 'assets';
  const slash = rel.indexOf('/');
  if (slash < 0 || rel.indexOf('/', slash + 1) >= 0 || rel[slash + 1] === '.' || !rel.endsWith('.json')) return undefined;
  const folder = rel.slice(0, slash);
  if (folder === 'resources') return 'resources';
  const kind = FOLDER_KINDS.get(folder);
  return kind && ITEM_SCHEMAS[kind];
}

/**
 * A source file's value in canonical order: the keys as formatPack orders the same value inside
 * a pack (the published schemas' order, unknown keys after the known ones in their order), with
 * the layout's own fields in their places (the manifest's "packSchema" where the pack has
 * "$schema", its own "$schema" first; an asset entry's "file" after "fileName"). A value of the
 * wrong shape for its role (an automation file holding an array) keeps its order wherever it does
 * not fit: only the JSON around it is re-indented. Shares what is in order already; changes nothing.
 */
export function sourceInOrder(role: SourceRole, value: unknown): unknown {
  switch (role) {
    case 'manifest':
      return manifestInOrder(value);
    case 'resources':
      return Array.isArray(value) ? value.map((r: unknown) => inCanonicalOrder(r, 'resource')) : value;
    case 'assets':
      return Array.isArray(value) ? value.map(assetEntryInOrder) : value;
    default:
      return inCanonicalOrder(value, role);
  }
}

/** A source file's canonical text: its value in canonical order, 2-space JSON, one final newline. */
export function sourceFileText(role: SourceRole, value: unknown): string {
  return JSON.stringify(sourceInOrder(role, value), null, 2) + '\n';
}

const hasOwn = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/**
 * The manifest is the pack's top level, so it is ordered as the pack: "packSchema" stands for the
 * pack's "$schema"; the item lists hold keys and keep their order as they are (so would an
 * "assets" list, which build refuses there).
 */
function manifestInOrder(manifest: unknown): unknown {
  if (!isObj(manifest)) return manifest;
  const asPack: Record<string, unknown> = {};
  for (const k of Object.keys(manifest)) {
    if (k === '$schema') continue; // the manifest's own, for editors: first, below
    setOwn(asPack, k === PACK_SCHEMA_FIELD ? '$schema' : k, ITEM_LISTS.has(k) ? null : manifest[k]);
  }
  const ordered = inCanonicalOrder(asPack);
  const out: Record<string, unknown> = {};
  if (hasOwn(manifest, '$schema')) out.$schema = manifest.$schema;
  for (const k of Object.keys(ordered)) {
    const name = k === '$schema' ? PACK_SCHEMA_FIELD : k;
    setOwn(out, name, ITEM_LISTS.has(name) ? manifest[name] : ordered[k]);
  }
  return out;
}

/** An asset entry is ordered as the asset it stands for, its "file" right after "fileName" (else where it is). */
function assetEntryInOrder(entry: unknown): unknown {
  if (!isObj(entry)) return entry;
  const ordered = inCanonicalOrder(entry, 'asset');
  if (!hasOwn(ordered, 'file') || !hasOwn(ordered, 'fileName')) return ordered;
  const keys = Object.keys(ordered);
  if (keys[keys.indexOf('fileName') + 1] === 'file') return ordered;
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    if (k === 'file') continue;
    setOwn(out, k, ordered[k]);
    if (k === 'fileName') out.file = ordered.file;
  }
  return out;
}

/**
 * The path in the folder, without its extension, of the files named after the key of item `index`
 * of a list kept one file per item, given all the list's keys (a name depends on the others: keys
 * that differ only in case); undefined for another list. An automation has `<base>.json`, a
 * template `<base>.json` and its body file (bodyFileOf).
 */
export function itemFileBase(kind: string, keys: readonly string[], index: number): string | undefined {
  if (!Object.prototype.hasOwnProperty.call(ITEM_FOLDERS, kind) || index < 0 || index >= keys.length) return undefined;
  return `${ITEM_FOLDERS[kind as FolderKind]}/${stemsForKeys(keys)[index]}`;
}

// ---------------------------------------------------------------------------------------------
// unpack

export class UnpackError extends Error {}

/** Splits a pack into source files. Throws UnpackError when items lack unique string keys, or an automation is more or less than a key and a document. */
export function unpackToFiles(input: unknown): SourceFiles {
  if (!isObj(input)) throw new UnpackError('the file is not a pack: its top level is not a JSON object');
  const pack = input;
  const files: SourceFiles = new Map();
  // Every JSON file in its canonical form (sourceFileText, which fmt uses too): the order in which
  // the values below are put together does not matter.
  const jsonFile = (path: string, role: SourceRole, value: unknown) => files.set(path, encoder.encode(sourceFileText(role, value)));
  const problems: string[] = [];
  for (const kind of [...KEYED_ITEM_KINDS, 'assets'] as const) {
    const list = pack[kind];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      problems.push(`${kind} is not an array`);
      continue;
    }
    const seen = new Set<string>();
    list.forEach((item, i) => {
      if (!isObj(item) || typeof item.key !== 'string') problems.push(`${kind}[${i}] has no string key`);
      else if (seen.has(item.key)) problems.push(`${kind}[${i}] repeats the key "${item.key}"`);
      else seen.add(item.key);
    });
  }
  // An automation's file holds its document and nothing else, so an automation without one, or with
  // other fields beside its key, would come back from build as another automation (the file's
  // text "undefined", or the fields gone). It is refused, by name, rather than changed.
  if (Array.isArray(pack.automations)) {
    for (const a of pack.automations as unknown[]) {
      if (!isObj(a) || typeof a.key !== 'string') continue; // said above
      const name = `automation ${JSON.stringify(a.key)}`;
      if (!hasOwn(a, 'document'))
        problems.push(`${name} has no "document", and its file in automations/ holds the document: give it one, or remove the automation`);
      const others = Object.keys(a).filter((k) => k !== 'key' && k !== 'document');
      if (others.length)
        problems.push(
          `${name} has ${others.map((k) => JSON.stringify(k)).join(', ')} beside its key and document, which its file in automations/ cannot hold (validate reports ${others.length === 1 ? 'it' : 'them'}): remove ${others.length === 1 ? 'it' : 'them'}`,
        );
    }
  }
  if (Object.prototype.hasOwnProperty.call(pack, PACK_SCHEMA_FIELD))
    problems.push(`the pack has a top-level "${PACK_SCHEMA_FIELD}" field, which the manifest uses for the pack's $schema`);
  if (problems.length)
    throw new UnpackError(
      `cannot unpack: ${problems.slice(0, 3).join('; ')}${problems.length > 3 ? ` (and ${problems.length - 3} more)` : ''}`,
    );

  // Build sets exportedAt, so the manifest leaves it out.
  const manifest: Record<string, unknown> = {};
  for (const k of Object.keys(pack)) {
    if (k === 'exportedAt' || k === 'assets') continue;
    const v = pack[k];
    Object.defineProperty(manifest, k === '$schema' ? PACK_SCHEMA_FIELD : k, {
      value: (KEYED_ITEM_KINDS as readonly string[]).includes(k) ? (v as { key: string }[]).map((i) => i.key) : v,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  jsonFile(MANIFEST, 'manifest', manifest);

  for (const kind of Object.keys(ITEM_FOLDERS) as FolderKind[]) {
    const list = pack[kind] as Record<string, unknown>[] | undefined;
    if (!list) continue;
    const stems = stemsForKeys(list.map((i) => i.key as string));
    list.forEach((item, i) => {
      const base = `${ITEM_FOLDERS[kind]}/${stems[i]}`;
      if (kind === 'automations') jsonFile(`${base}.json`, ITEM_SCHEMAS[kind], item.document);
      // A body with a lone surrogate has no UTF-8 file form, so it stays in the JSON; so does one
      // that starts with U+FEFF, which build reads at the start of a body file as the file's byte
      // order mark (an editor's encoding mark), not as part of the body.
      else if (kind === 'messageTemplates' && typeof item.body === 'string' && !hasLoneSurrogate(item.body) && !item.body.startsWith(BOM)) {
        jsonFile(`${base}.json`, ITEM_SCHEMAS[kind], without(item, 'key', 'body'));
        files.set(bodyFileOf(base, item.channel), encoder.encode(item.body));
      } else jsonFile(`${base}.json`, ITEM_SCHEMAS[kind], without(item, 'key'));
    });
  }

  const resources = pack.resources as Record<string, unknown>[] | undefined;
  if (resources) {
    const groups = new Map<string, Record<string, unknown>[]>();
    for (const r of resources) {
      const sorted = typeof r.kind === 'string' && RESOURCE_KIND_SET.has(r.kind);
      const file = sorted ? `resources/${r.kind as string}.json` : UNSORTED_RESOURCES;
      if (!groups.has(file)) groups.set(file, []);
      groups.get(file)!.push(sorted ? without(r, 'kind') : r);
    }
    for (const [file, list] of groups) jsonFile(file, 'resources', list);
  }

  const assets = pack.assets as Record<string, unknown>[] | undefined;
  if (assets) {
    const used = new Set<string>();
    const entries = assets.map((a) => {
      // Only strict (canonical) base64 comes back the same from a file: anything else stays inline.
      const bytes = typeof a.data === 'string' && !('file' in a) ? strictBase64Bytes(a.data) : undefined;
      if (!bytes) return a;
      // Only when the recorded hash and size match: otherwise keep them, so nothing is lost.
      if (a.sha256 !== createHash('sha256').update(bytes).digest('hex') || a.byteSize !== bytes.length) return a;
      const fromName = typeof a.fileName === 'string' ? stemsForKeys([a.fileName])[0] : '';
      let name =
        fromName && !used.has(fromName.toLowerCase()) ? fromName : `${stemsForKeys([a.key as string])[0]}${fromName ? '-' + fromName : ''}`;
      for (let n = 2; used.has(name.toLowerCase()); n++) name = `${n}-${name}`;
      used.add(name.toLowerCase());
      files.set(`assets/${name}`, bytes);
      return { ...without(a, 'data', 'byteSize', 'sha256'), file: name }; // "file" goes after "fileName" (sourceFileText)
    });
    jsonFile(ASSETS_INDEX, 'assets', entries);
  }
  return files;
}

// ---------------------------------------------------------------------------------------------
// build

/** Where a value of the built pack came from: a source file and a pointer inside it. */
export interface SourceLocation {
  file: string;
  /** Pointer inside the file when it is JSON; undefined for a body or asset file. */
  pointer?: string;
  /**
   * Words to add to a finding's message, and its hint, where the value it is about is not written
   * in the file's JSON: a missing property the layout keeps in a file of its own (a template's
   * body; `file` is then that file, which does not exist: the one to create), or a resource's kind,
   * which is its file's name.
   */
  said?: { note: string; hint: string };
}

export interface SourceDiagnostic extends Diagnostic {
  file: string;
}

export interface BuildOptions {
  /** exportedAt of the built pack (an RFC 3339 timestamp). */
  exportedAt: string;
  /**
   * Files of the folder that are links leading out of the repository (or folder) and were not
   * read: path → why, a sentence naming where the link leads. Each is an error of its own, not
   * a missing file.
   */
  refusedLinks?: ReadonlyMap<string, string>;
  /** Files of the folder that are links leading to nothing or round in a loop: path → why. Each is an error of its own, not a missing file. */
  brokenLinks?: ReadonlyMap<string, string>;
  /** Paths of the folder's layout that are a pipe, a socket or a device, or a link to one: path → why. Each is an error of its own, not a missing file. */
  notFiles?: ReadonlyMap<string, string>;
}

export interface BuildResult {
  /** The built pack (canonical key order); absent when the sources could not be read. */
  pack?: Record<string, unknown>;
  /** Problems of the folder itself, positioned in its files. */
  diagnostics: SourceDiagnostic[];
  /**
   * Maps a pointer of the built pack to its source. `missing`: the property a finding says is
   * absent from the value at the pointer (a Diagnostic's `missing`), when it is about one.
   */
  locate(packPointer: string, missing?: string): SourceLocation;
  /** The JSON source files read, as parsed: their text, and their findings' positions in one scan each. */
  sources: ReadonlyMap<string, SourceText>;
  /**
   * Each asset read from a file: its base64 text (the pack's `data`, as this build wrote it) to the
   * size and SHA-256 of its bytes, worked out from the bytes here. Validating the built pack asks
   * the same of the same text; a hasher that looks here first does not decode and hash it again.
   */
  assetHashes: ReadonlyMap<string, { byteSize: number; sha256: string }>;
}

type Origin =
  | { type: 'document'; file: string; manifestPointer: string }
  // bodyOwnFile: a template without "body" in its JSON file, the file the layout keeps its body in
  // (the one to create when it is missing). The only property a built item can lack that the
  // layout keeps in a file of its own: an automation's document and an asset's bytes are read from
  // their files, so an item without them is not built.
  | { type: 'object'; file: string; manifestPointer: string; bodyFile?: string; bodyOwnFile?: string }
  | { type: 'resource'; file: string; index: number; manifestPointer: string; kindFromName: boolean }
  | { type: 'asset'; index: number; file?: string };

/** Whether a path of the folder goes through a file or folder whose name starts with a dot, which build ignores. */
const isHidden = (rel: string) => rel.startsWith('.') || rel.includes('/.');

/**
 * Builds a pack from the files of a source folder. The steps: the files refused up front (links,
 * pipes), the manifest and its top-level fields, each item folder in the manifest's key order,
 * resources/<kind>.json, assets.json and its files, and the files nothing reads.
 */
export function buildFromFiles(all: SourceFiles, options: BuildOptions): BuildResult {
  // readTree reads no such file; a map made otherwise (in memory) may hold some, and they are ignored the same.
  const files: SourceFiles = [...all.keys()].some(isHidden) ? new Map([...all].filter(([rel]) => !isHidden(rel))) : all;
  const b = new SourceBuild(files, options);
  const manifest = readManifest(b);
  if (!manifest) return b.failed();
  copyTopLevelFields(b, manifest);
  for (const kind of Object.keys(ITEM_FOLDERS) as FolderKind[]) readItemFolder(b, manifest, kind);
  readResources(b, manifest);
  const assets = readAssets(b);
  reportUnreadFiles(b, assets);
  b.put('exportedAt', options.exportedAt);
  // The items are this build's own parsed files, so the pack may share them: in order already when
  // `unpack` or `fmt` wrote them, and then not copied (a copy of a large pack was a tenth of validating it).
  return { pack: inCanonicalOrder(b.pack), diagnostics: b.diagnostics, locate: b.locate, sources: b.texts, assetHashes: b.assetHashes };
}

type BuildCode = (typeof BUILD_RULES)[number]['code'];

/** One build of a source folder: the files it reads, and the pack, findings, texts and origins it gathers. */
class SourceBuild {
  readonly diagnostics: SourceDiagnostic[] = [];
  readonly texts = new Map<string, SourceText>();
  /** Files build does not read, each with the finding that says why (a link out of the folder, a pipe...). */
  readonly refused: Map<string, string>;
  /** Files the manifest, an index or a listed item reads: any other file of an item folder is reported. */
  readonly claimed = new Set<string>([MANIFEST]);
  readonly origins = new Map<string, Origin[]>();
  readonly assetHashes = new Map<string, { byteSize: number; sha256: string }>();
  readonly pack: Record<string, unknown> = {};
  readonly locate = (packPointer: string, missing?: string): SourceLocation =>
    locateIn(packPointer, this.origins, (file) => this.files.has(file) && !this.refused.has(file), missing);

  constructor(
    readonly files: SourceFiles,
    options: BuildOptions,
  ) {
    this.refused = new Map<string, string>(options.refusedLinks);
    for (const [file, why] of this.refused)
      this.wholeFile(file, 'build/link-outside', why, 'Copy the file into the folder, or link to one inside the repository.');
    for (const [file, why] of options.brokenLinks ?? []) {
      this.refused.set(file, why);
      this.wholeFile(file, 'build/broken-link', why, 'Make the link lead to the file, put the file in its place, or delete the link.');
    }
    for (const [file, why] of options.notFiles ?? []) {
      this.refused.set(file, why);
      this.wholeFile(file, 'build/not-a-file', why, 'Put the file in its place, or delete it.');
    }
  }

  /** A finding at `pointer` of a JSON file read, positioned in it. */
  report(file: string, pointer: string, code: BuildCode, message: string, hint?: string): void {
    const meta = BUILD_RULES.find((r) => r.code === code)!;
    const d: SourceDiagnostic = { file, code, severity: meta.severity, message, pointer, ...(hint ? { hint } : {}) };
    const pos = this.texts.get(file)?.locate(pointer);
    if (pos) Object.assign(d, pos);
    this.diagnostics.push(d);
  }

  /** A finding about a whole file, at its start. */
  wholeFile(file: string, code: string, message: string, hint?: string, severity: Diagnostic['severity'] = 'error'): void {
    this.diagnostics.push({ file, code, severity, message, pointer: '', line: 1, column: 1, ...(hint ? { hint } : {}) });
  }

  /** Reads and parses a JSON source file; syntax problems become diagnostics of that file. */
  readJson(file: string): { ok: true; value: unknown } | { ok: false } {
    const bytes = this.files.get(file);
    if (!bytes) return { ok: false };
    const wrong = encodingProblem(bytes.subarray(0, 4));
    if (wrong) {
      this.wholeFile(file, 'json/syntax', `The file is not UTF-8: ${wrong}.`);
      return { ok: false };
    }
    const lossy = notUtf8(bytes);
    if (lossy) {
      this.wholeFile(file, 'build/not-utf8', lossy);
      return { ok: false };
    }
    const parsed = parseJsonText(utf8.decode(bytes));
    this.texts.set(file, parsed.source);
    for (const d of parsed.diagnostics) this.diagnostics.push({ ...d, file });
    // Not JSON, or nested too deep: no value. A number JSON.parse cannot hold (json/number-range) is
    // an error of the pack the file says, reported here with the number as written; the file is read.
    return parsed.value === undefined ? { ok: false } : { ok: true, value: parsed.value };
  }

  put(k: string, v: unknown): void {
    Object.defineProperty(this.pack, k, { value: v, enumerable: true, writable: true, configurable: true });
  }

  /** The result of a build that could not make a pack: its findings. */
  failed(): BuildResult {
    return { diagnostics: this.diagnostics, locate: this.locate, sources: this.texts, assetHashes: this.assetHashes };
  }
}

/** The manifest as an object; undefined, with the finding, when it is refused, missing, unreadable or not an object. */
function readManifest(b: SourceBuild): Record<string, unknown> | undefined {
  // A manifest that is a link build refused, or no file: that finding is the folder's one, not also a lost manifest.
  if (b.refused.has(MANIFEST)) return undefined;
  if (!b.files.has(MANIFEST)) {
    // A folder holding the layout's files but no manifest lost it (deleted, or never committed): say so, naming what it holds.
    const held = [
      ...new Set(
        [...b.files.keys()]
          .filter((f) => f === ASSETS_INDEX || JSON_SOURCE_FOLDERS.some((d) => f.startsWith(`${d}/`)))
          .map((f) => (f === ASSETS_INDEX ? f : `${f.slice(0, f.indexOf('/'))}/`)),
      ),
    ].sort();
    const message = held.length
      ? `The folder holds ${held.length > 1 ? `${held.slice(0, -1).join(', ')} and ${held[held.length - 1]}` : held[0]} as a pack source folder does, but no ${MANIFEST}: it is missing.`
      : `The folder has no ${MANIFEST}; it is not a pack source folder (create one with setup-pack new).`;
    const hint = held.length
      ? `Restore ${MANIFEST} (git checkout -- ${MANIFEST}), or write one: the pack's top-level fields and the lists of item keys (setup-pack new writes an example).`
      : undefined;
    b.diagnostics.push({ file: MANIFEST, code: 'build/missing-file', severity: 'error', message, pointer: '', ...(hint ? { hint } : {}) });
    return undefined;
  }
  const m = b.readJson(MANIFEST);
  if (!m.ok) return undefined;
  if (!isObj(m.value)) {
    b.report(MANIFEST, '', 'build/manifest', `${MANIFEST} must be a JSON object with the pack's top-level fields.`);
    return undefined;
  }
  return m.value;
}

/** The manifest's fields other than the key lists, as the pack's; each item list placed empty, keeping the manifest's field order. */
function copyTopLevelFields(b: SourceBuild, manifest: Record<string, unknown>): void {
  for (const k of Object.keys(manifest)) {
    if (k === 'assets') {
      b.report(MANIFEST, '/assets', 'build/manifest', `Assets are described in ${ASSETS_INDEX}, not in ${MANIFEST}.`);
      continue;
    }
    if ((KEYED_ITEM_KINDS as readonly string[]).includes(k)) {
      b.put(k, []); // filled below, keeping the manifest's field order
      continue;
    }
    if (k === '$schema') continue; // the manifest's own schema, for editors; not the pack's
    b.put(k === PACK_SCHEMA_FIELD ? '$schema' : k, manifest[k]);
  }
}

/** The manifest's list of keys for a kind, with problems reported. */
function keysOf(b: SourceBuild, manifest: Record<string, unknown>, kind: string): string[] | undefined {
  const list = manifest[kind];
  if (list === undefined) return undefined;
  if (!Array.isArray(list)) {
    b.report(MANIFEST, `/${kind}`, 'build/manifest', `"${kind}" in ${MANIFEST} must be an array of item keys.`);
    return undefined;
  }
  const seen = new Set<string>();
  const keys: string[] = [];
  list.forEach((k, i) => {
    if (typeof k !== 'string')
      b.report(MANIFEST, `/${kind}/${i}`, 'build/manifest', `Entries of "${kind}" in ${MANIFEST} are item keys (strings).`);
    else if (seen.has(k)) b.report(MANIFEST, `/${kind}/${i}`, 'build/manifest', `The key "${k}" is listed twice in "${kind}".`);
    else {
      seen.add(k);
      keys.push(k);
    }
  });
  return keys;
}

/** The items of one folder (automations/, templates/...), one file per key the manifest lists. */
function readItemFolder(b: SourceBuild, manifest: Record<string, unknown>, kind: FolderKind): void {
  const keys = keysOf(b, manifest, kind);
  if (!keys) {
    delete b.pack[kind];
    return;
  }
  const stems = stemsForKeys(keys);
  const items: unknown[] = [];
  const kindOrigins: Origin[] = [];
  keys.forEach((key, i) => {
    const read = readItemFile(b, kind, key, `${ITEM_FOLDERS[kind]}/${stems[i]}`, `/${kind}/${(manifest[kind] as unknown[]).indexOf(key)}`);
    if (!read) return;
    items.push(read.item);
    kindOrigins.push(read.origin);
  });
  b.put(kind, items);
  b.origins.set(kind, kindOrigins);
}

/** One listed item from `<base>.json` (and a template's body file); undefined, with the finding, when it cannot be read. */
function readItemFile(
  b: SourceBuild,
  kind: FolderKind,
  key: string,
  base: string,
  manifestPointer: string,
): { item: unknown; origin: Origin } | undefined {
  const file = `${base}.json`;
  b.claimed.add(file);
  // A template's body file is its key's whether or not its JSON file reads: one broken file is
  // one finding, not a second that calls the body file unlisted.
  const bodies = kind === 'messageTemplates' ? ['html', 'txt'].map((ext) => `${base}.${ext}`).filter((f) => b.files.has(f)) : [];
  bodies.forEach((f) => b.claimed.add(f));
  if (b.refused.has(file)) return undefined;
  if (!b.files.has(file)) {
    b.report(
      MANIFEST,
      manifestPointer,
      'build/missing-file',
      `${MANIFEST} lists the ${kind} key "${key}" but ${file} does not exist.`,
      `Create ${file} or remove "${key}" from "${kind}".`,
    );
    return undefined;
  }
  const r = b.readJson(file);
  if (!r.ok) return undefined;
  if (kind === 'automations') return { item: { key, document: r.value }, origin: { type: 'document', file, manifestPointer } };
  if (!isObj(r.value)) {
    b.report(file, '', 'build/not-an-object', `${file} must hold a JSON object.`);
    return undefined;
  }
  if ('key' in r.value && r.value.key !== key)
    b.report(
      file,
      '/key',
      'build/key-mismatch',
      `The key in this file ("${String(r.value.key)}") differs from the manifest's "${key}".`,
      'Remove "key" from the file; the manifest and the file name give it.',
    );
  const item: Record<string, unknown> = { key, ...without(r.value, 'key') };
  const origin: Origin = { type: 'object', file, manifestPointer };
  if (kind === 'messageTemplates') readTemplateBody(b, { key, file, base, value: r.value, bodies }, item, origin);
  return { item, origin };
}

/** A template's body from its .html or .txt file, when it has one (and not also a "body" in its JSON). */
function readTemplateBody(
  b: SourceBuild,
  t: { key: string; file: string; base: string; value: Record<string, unknown>; bodies: string[] },
  item: Record<string, unknown>,
  origin: Origin & { type: 'object' },
): void {
  const { bodies, value, file } = t;
  if (bodies.length > 1 || (bodies.length === 1 && 'body' in value)) {
    b.report(
      file,
      'body' in value ? '/body' : '',
      'build/duplicate-body',
      `The template "${t.key}" has its body in ${[...bodies, ...('body' in value ? [`${file} ("body")`] : [])].join(' and ')}; keep one.`,
    );
  } else if (bodies.length === 1) {
    const bytes = b.files.get(bodies[0])!;
    const lossy = notUtf8(bytes);
    if (lossy) b.wholeFile(bodies[0], 'build/not-utf8', lossy);
    item.body = utf8.decode(bytes);
    origin.bodyFile = bodies[0];
  }
  if (!('body' in value)) origin.bodyOwnFile = bodies[0] ?? bodyFileOf(t.base, value.channel);
}

/** A resource as found in a resources/<kind>.json file. */
interface FoundResource {
  value: Record<string, unknown>;
  file: string;
  index: number;
  kindFromName: boolean;
}

/** Resources: every resources/<kind>.json read, then grouped by kind and ordered by the manifest. */
function readResources(b: SourceBuild, manifest: Record<string, unknown>): void {
  const resourceKeys = keysOf(b, manifest, 'resources');
  const { found, unknown } = readResourceFiles(b);
  if (resourceKeys) {
    const kindOrigins: Origin[] = [];
    const items: unknown[] = [];
    resourceKeys.forEach((key) => {
      const manifestPointer = `/resources/${(manifest.resources as unknown[]).indexOf(key)}`;
      const f = found.get(key);
      if (!f) {
        if (unknown) return;
        b.report(
          MANIFEST,
          manifestPointer,
          'build/missing-file',
          `${MANIFEST} lists the resource "${key}" but no resources/<kind>.json file defines it.`,
          `Add { "key": "${key}", "name": "…" } to resources/<kind>.json or remove it from "resources".`,
        );
        return;
      }
      items.push(f.value);
      kindOrigins.push({ type: 'resource', file: f.file, index: f.index, manifestPointer, kindFromName: f.kindFromName });
    });
    b.put('resources', items);
    b.origins.set('resources', kindOrigins);
  }
  for (const [key, f] of found) {
    if (!resourceKeys?.includes(key))
      b.report(
        f.file,
        `/${f.index}`,
        'build/unlisted-file',
        `The resource "${key}" is not listed in ${MANIFEST}'s "resources", so it would be left out.`,
        `Add "${key}" to "resources" in ${MANIFEST}, or delete it.`,
      );
  }
}

const isResourceFile = (file: string) => /^resources\/[^/]+\.json$/.test(file);

/**
 * The resources of every resources/<kind>.json by key. `unknown`: a file was refused (a broken link,
 * a pipe, a link out of the repository) or does not read as a list of resources; it has its own
 * finding, and the keys it would define are unknown, so a listed key none of the others defines is
 * not also called missing: one cause, one finding.
 */
function readResourceFiles(b: SourceBuild): { found: Map<string, FoundResource>; unknown: boolean } {
  const found = new Map<string, FoundResource>();
  let unknown = [...b.refused.keys()].some(isResourceFile);
  for (const [file] of b.files) {
    if (!isResourceFile(file)) continue;
    b.claimed.add(file);
    const r = b.readJson(file);
    if (!r.ok || !Array.isArray(r.value)) unknown = true;
    if (!r.ok) continue;
    if (!Array.isArray(r.value)) {
      b.report(file, '', 'build/not-an-object', `${file} must hold an array of resources.`);
      continue;
    }
    const kindFromName = file === UNSORTED_RESOURCES ? undefined : file.slice('resources/'.length, -'.json'.length);
    r.value.forEach((entry, index) => {
      if (!isObj(entry) || typeof entry.key !== 'string') {
        b.report(file, `/${index}`, 'build/not-an-object', `Each resource in ${file} is an object with a string "key".`);
        return;
      }
      if (found.has(entry.key)) {
        b.report(file, `/${index}/key`, 'build/manifest', `The resource key "${entry.key}" also appears in ${found.get(entry.key)!.file}.`);
        return;
      }
      const value =
        kindFromName === undefined || 'kind' in entry ? entry : { key: entry.key, kind: kindFromName, ...without(entry, 'key') };
      found.set(entry.key, { value, file, index, kindFromName: value !== entry });
    });
  }
  return { found, unknown };
}

/**
 * Assets from assets.json, each entry's bytes read from its file under assets/. `known`: which files
 * assets.json uses is known only when it reads as an array; otherwise its own finding is the one,
 * and no asset file is called unused.
 */
function readAssets(b: SourceBuild): { known: boolean; files: Set<string> } {
  const used = { known: !b.refused.has(ASSETS_INDEX), files: new Set<string>() };
  if (!b.files.has(ASSETS_INDEX)) return used;
  b.claimed.add(ASSETS_INDEX);
  const r = b.readJson(ASSETS_INDEX);
  used.known = r.ok && Array.isArray(r.value);
  if (r.ok && !Array.isArray(r.value))
    b.report(ASSETS_INDEX, '', 'build/not-an-object', `${ASSETS_INDEX} must hold an array of asset entries.`);
  else if (r.ok) {
    const kindOrigins: Origin[] = [];
    const assets: unknown[] = [];
    (r.value as unknown[]).forEach((entry, index) => {
      const read = readAssetEntry(b, entry, index, used.files);
      if (!read) return;
      assets.push(read.asset);
      kindOrigins.push(read.origin);
    });
    b.put('assets', assets);
    b.origins.set('assets', kindOrigins);
  }
  return used;
}

/** One entry of assets.json, with its file's bytes as `data` (and their size and hash); undefined, with the finding, when its file cannot be read. */
function readAssetEntry(
  b: SourceBuild,
  entry: unknown,
  index: number,
  usedFiles: Set<string>,
): { asset: unknown; origin: Origin } | undefined {
  if (!isObj(entry) || !('file' in entry)) return { asset: entry, origin: { type: 'asset', index } };
  const rel = entry.file;
  if (
    typeof rel !== 'string' ||
    rel === '' ||
    rel.split('/').some((s) => s === '..' || s === '.' || s === '') ||
    rel.startsWith('/') ||
    rel.includes('\\')
  ) {
    b.report(ASSETS_INDEX, `/${index}/file`, 'build/asset-path', `"file" is a path inside assets/, such as "logo.png".`);
    return undefined;
  }
  if (rel.split('/').some((s) => s.startsWith('.'))) {
    b.report(
      ASSETS_INDEX,
      `/${index}/file`,
      'build/asset-path',
      `"file" names ${JSON.stringify(rel)}, but build ignores files and folders whose name starts with a dot, so it reads no such file: rename the file, and its "file" here.`,
    );
    return undefined;
  }
  const path = `assets/${rel}`;
  usedFiles.add(path);
  if (entry.data !== undefined && entry.data !== null) {
    b.report(
      ASSETS_INDEX,
      `/${index}/data`,
      'build/duplicate-data',
      `The asset "${String(entry.key)}" has its bytes in ${path} ("file") and in "data"; keep one.`,
    );
    return undefined;
  }
  const bytes = b.files.get(path);
  if (b.refused.has(path)) return undefined;
  if (!bytes) {
    b.report(ASSETS_INDEX, `/${index}/file`, 'build/missing-file', `The asset file ${path} does not exist.`);
    return undefined;
  }
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const hashed = { byteSize: buf.length, sha256: createHash('sha256').update(buf).digest('hex') };
  const data = buf.toString('base64');
  b.assetHashes.set(data, hashed);
  return { asset: { ...without(entry, 'file'), ...hashed, data }, origin: { type: 'asset', index, file: path } };
}

/** Files of the layout's folders that build does not read (an asset file no entry uses, a file of no listed key): each said, so nothing is left out unnoticed. */
function reportUnreadFiles(b: SourceBuild, assets: { known: boolean; files: Set<string> }): void {
  for (const [file] of b.files) {
    if (file.startsWith('assets/')) {
      if (assets.known && !assets.files.has(file))
        b.wholeFile(file, 'build/unused-asset-file', `${file} is not used by any entry in ${ASSETS_INDEX}.`, undefined, 'warning');
      continue;
    }
    if (file.startsWith('resources/') && !b.claimed.has(file)) {
      // resources/<kind>.json files are all read (claimed above): anything else there is not.
      const name = file.slice('resources/'.length);
      if (!name.includes('/') && isNote(name)) continue;
      b.wholeFile(
        file,
        'build/unlisted-file',
        `${file} is not a file build reads: resources/ holds one <kind>.json file per resource kind, so it would be left out.`,
        `Move it out of resources/, or make it resources/<kind>.json (${RESOURCE_KINDS.map((k) => `${k}.json`).join(', ')}). A note (README.md) may stay: build skips it.`,
      );
      continue;
    }
    const folder = Object.values(ITEM_FOLDERS).find((f) => file.startsWith(`${f}/`));
    if (!folder || b.claimed.has(file)) continue;
    const name = file.slice(folder.length + 1);
    if (!name.includes('/') && isNote(name)) continue; // a README beside the item files, as one at the top
    if (!name.includes('/') && (name.endsWith('.json') || (folder === ITEM_FOLDERS.messageTemplates && /\.(html|txt)$/.test(name)))) {
      b.wholeFile(
        file,
        'build/unlisted-file',
        `${file} does not belong to any key listed in ${MANIFEST}, so it would be left out.`,
        `List its key in ${MANIFEST} (keys are percent-encoded in file names), or delete the file.`,
      );
      continue;
    }
    // Not an item file of any key (another kind of file, or a folder below): listing a key would not make build read it.
    const holds =
      folder === ITEM_FOLDERS.messageTemplates
        ? `${folder}/ holds one <key>.json file per message template, and its body in <key>.html or <key>.txt`
        : `${folder}/ holds one <key>.json file per ${ITEM_NOUNS[folder]}`;
    b.wholeFile(
      file,
      'build/unlisted-file',
      `${file} is not a file build reads: ${holds}, so it would be left out.`,
      `Move it out of ${folder}/, or make it ${folder}/<key>.json and list the key in ${MANIFEST}. A note (README.md, NOTES.txt) may stay: build skips it.`,
    );
  }
}

/** A pack pointer's first three tokens, and the pointer from its field on and after it, as written. */
export interface CutPointer {
  kind?: string;
  indexToken?: string;
  field?: string;
  /** "/field/…", or "" without a field. */
  fromField: string;
  /** "/…" after the field, or "". */
  afterField: string;
}

/**
 * Cuts a pointer of the built pack where locateIn needs it. A pointer with no escape is cut where
 * its slashes are, one indexOf each, rather than parsed into tokens and joined again (validating a
 * folder locates every finding); `slow` takes the general way, which the tests hold the fast one to.
 * Undefined for text that is not a pointer.
 */
export function cutPointer(packPointer: string, slow = false): CutPointer | undefined {
  const cut: CutPointer = { kind: undefined, indexToken: undefined, field: undefined, fromField: '', afterField: '' };
  if (packPointer === '') return cut;
  if (!slow && packPointer.charCodeAt(0) === 47 /* / */ && !packPointer.includes('~')) {
    const s1 = packPointer.indexOf('/', 1);
    cut.kind = packPointer.slice(1, s1 < 0 ? undefined : s1);
    if (s1 < 0) return cut;
    const s2 = packPointer.indexOf('/', s1 + 1);
    cut.indexToken = packPointer.slice(s1 + 1, s2 < 0 ? undefined : s2);
    if (s2 < 0) return cut;
    const s3 = packPointer.indexOf('/', s2 + 1);
    cut.field = packPointer.slice(s2 + 1, s3 < 0 ? undefined : s3);
    cut.fromField = packPointer.slice(s2);
    cut.afterField = s3 < 0 ? '' : packPointer.slice(s3);
    return cut;
  }
  let tokens: string[];
  try {
    tokens = parsePointer(packPointer);
  } catch {
    return undefined;
  }
  [cut.kind, cut.indexToken, cut.field] = tokens;
  cut.fromField = toPointer(tokens.slice(2));
  cut.afterField = toPointer(tokens.slice(3));
  return cut;
}

/**
 * Where a finding about the built pack's value at `packPointer` goes in the folder. One about a
 * `missing` property that the layout keeps in a file of its own (a template's body) goes to that
 * file, the one to create, saying it does not exist: at the item's JSON file the user would look
 * for a field they are not meant to write there.
 */
function locateIn(
  packPointer: string,
  origins: Map<string, Origin[]>,
  exists: (file: string) => boolean,
  missing?: string,
): SourceLocation {
  const cut = cutPointer(packPointer);
  if (!cut) return { file: MANIFEST, pointer: '' };
  const { kind, indexToken, field, fromField, afterField } = cut;
  if (missing !== undefined && field === undefined && kind !== undefined && indexToken !== undefined) {
    const origin = origins.get(kind)?.[Number(indexToken)];
    const own = missing === 'body' && origin?.type === 'object' ? origin.bodyOwnFile : undefined;
    if (own !== undefined && !exists(own)) {
      return {
        file: own,
        said: {
          note: `${own} does not exist: the source folder keeps "body" in that file.`,
          hint: `Create ${own}, or write "body" in ${origin!.file}.`,
        },
      };
    }
  }
  const list = kind === undefined ? undefined : origins.get(kind);
  if (!list || indexToken === undefined) {
    if (kind === 'assets' && origins.has('assets')) return { file: ASSETS_INDEX, pointer: '' };
    if (kind === 'exportedAt') return { file: MANIFEST, pointer: '' };
    if (kind === '$schema') return { file: MANIFEST, pointer: `/${PACK_SCHEMA_FIELD}` };
    return { file: MANIFEST, pointer: packPointer };
  }
  const origin = list[Number(indexToken)];
  if (!origin) return { file: MANIFEST, pointer: `/${kind}` };
  switch (origin.type) {
    case 'document':
      if (field === 'document') return { file: origin.file, pointer: afterField };
      return { file: MANIFEST, pointer: origin.manifestPointer };
    case 'object':
      if (field === 'key' || field === undefined)
        return field === 'key' ? { file: MANIFEST, pointer: origin.manifestPointer } : { file: origin.file, pointer: '' };
      if (field === 'body' && origin.bodyFile) return { file: origin.bodyFile };
      return { file: origin.file, pointer: fromField };
    case 'resource':
      if (field === 'kind' && origin.kindFromName) {
        // A kind the file's name gave: the name is what to change.
        return {
          file: origin.file,
          pointer: `/${origin.index}`,
          said: {
            note: `The source folder takes the resource's kind from its file's name, ${origin.file}.`,
            hint: `Name the file after the kind of the resources it holds (resources/${RESOURCE_KINDS[0]}.json), or write each resource's "kind" in ${UNSORTED_RESOURCES}.`,
          },
        };
      }
      return { file: origin.file, pointer: `/${origin.index}${fromField}` };
    case 'asset':
      if (origin.file && (field === 'data' || field === 'byteSize' || field === 'sha256'))
        return { file: ASSETS_INDEX, pointer: `/${origin.index}/file` };
      return { file: ASSETS_INDEX, pointer: `/${origin.index}${fromField}` };
  }
}
