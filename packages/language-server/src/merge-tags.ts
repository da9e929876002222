// Merge tags in a template's text: completion after `{{`, and hover on a tag, from core's list.
// A template's text is its `body` or `subject`: `messageTemplates[i]` in a pack file, a source
// folder's templates/<name>.json, or the whole of its body file templates/<name>.html or .txt. A
// tag never spans lines of the document (a JSON string is one line), so the line at the cursor is
// read first and the JSON place only where the line has a tag: hover on a large pack stays cheap.
import { MERGE_TAGS, MERGE_TAG_SCOPES, mergeTagInfo } from '@setup-pack/core';
import { getLocation } from 'jsonc-parser';
import { CompletionItemKind, type CompletionItem, type Position, type Range } from 'vscode-languageserver';
import type { DocumentView } from './documents.js';

const BODY_FILE = /\/templates\/[^/]+\.(html|txt)$/i;
const TEMPLATE_JSON = /\/templates\/[^/]+\.json$/i;
const TEXT_FIELDS = new Set(['body', 'subject']);

/** The tag at `character` of a line: the braces' span and the name between them (as written so far). */
interface TagAt {
  /** Where its `{{` is. */
  open: number;
  /** Where the name starts (after `{{`) and ends (before the spaces and `}}`, or at the cursor). */
  nameStart: number;
  nameEnd: number;
  /** Where the tag ends: after its `}}`, or where the name ends when it is not closed yet. */
  end: number;
  closed: boolean;
  name: string;
}

/** The open or closed tag whose braces hold `character` (from `{{` to its `}}`). */
function tagAt(line: string, character: number): TagAt | undefined {
  const open = line.lastIndexOf('{{', character);
  if (open < 0) return undefined;
  const rest = /^\s*([A-Za-z_][\w.]*)?(\s*\}\})?/.exec(line.slice(open + 2))!;
  const lead = rest[0].length - rest[0].trimStart().length;
  const nameStart = open + 2 + lead;
  const nameEnd = nameStart + (rest[1]?.length ?? 0);
  const end = rest[2] ? open + 2 + rest[0].length : nameEnd;
  // The cursor must be inside what was read: `{{ contact.fi|` or `{{contact.first_name}|}`.
  if (character > Math.max(end, nameStart)) return undefined;
  return { open, nameStart, nameEnd, end, closed: Boolean(rest[2]), name: rest[1] ?? '' };
}

/** Whether the position is in a template's body or subject (the tag's line was read already). */
function inTemplateText(view: DocumentView, position: Position): boolean {
  const uri = view.doc.uri;
  if (view.folder && BODY_FILE.test(uri)) return true;
  const location = getLocation(view.doc.getText(), view.doc.offsetAt(position));
  if (location.isAtPropertyKey || location.previousNode?.type !== 'string') return false;
  const path = location.path;
  if (view.folder && TEMPLATE_JSON.test(uri)) return path.length === 1 && TEXT_FIELDS.has(String(path[0]));
  return path.length === 3 && path[0] === 'messageTemplates' && typeof path[1] === 'number' && TEXT_FIELDS.has(String(path[2]));
}

function lineOf(view: DocumentView, position: Position): string {
  return view.doc.getText({ start: { line: position.line, character: 0 }, end: { line: position.line + 1, character: 0 } });
}

/** The merge tags that may be written at the cursor, when it is after `{{` in a template's text. */
export function mergeTagCompletions(view: DocumentView, position: Position): CompletionItem[] | undefined {
  const tag = tagAt(lineOf(view, position), position.character);
  if (!tag || position.character < tag.nameStart || !inTemplateText(view, position)) return undefined;
  // The name (and the closing braces, when they are there) is replaced: `{{con|` becomes `{{contact.first_name}}`.
  const range: Range = {
    start: { line: position.line, character: tag.nameStart },
    end: { line: position.line, character: tag.closed ? tag.end : tag.nameEnd },
  };
  return MERGE_TAGS.map((t) => ({
    label: t.tag,
    kind: CompletionItemKind.Variable,
    detail: t.label,
    documentation: { kind: 'markdown', value: `${t.description}\n\n${MERGE_TAG_SCOPES[t.scope]}` },
    filterText: t.tag,
    textEdit: { range, newText: `${t.tag}}}` },
  }));
}

/** What a merge tag under the cursor is filled with. */
export function mergeTagHover(view: DocumentView, position: Position): { text: string; range: Range } | undefined {
  const line = lineOf(view, position);
  if (!line.includes('{{')) return undefined;
  const tag = tagAt(line, position.character);
  if (!tag?.closed || !tag.name || !inTemplateText(view, position)) return undefined;
  const info = mergeTagInfo(tag.name);
  const value = info
    ? `**${info.label}** \`{{${info.tag}}}\`\n\n${info.description}\n\n${MERGE_TAG_SCOPES[info.scope]}`
    : `\`{{${tag.name}}}\`: not one of the merge tags Setup Pack proposes (docs/catalog.md); a workspace that defines it fills it in.`;
  return { text: value, range: { start: { line: position.line, character: tag.open }, end: { line: position.line, character: tag.end } } };
}
