// Hover: a block's kind as the node catalog describes it, a key or a use of one as what it binds
// to, a merge tag as what fills it in, and the findings under the cursor as their rules explain them.
import { nodeKindInfo, RULE_METADATA, type ConfigField } from '@setup-pack/core';
import type { Hover, Position } from 'vscode-languageserver';
import { RULES_DOCS_URL, ruleDocsUrl, type FindingData } from './diagnostics.js';
import type { DocumentView } from './documents.js';
import type { Hit } from './lookup.js';
import { mergeTagHover } from './merge-tags.js';
import type { Collection, PackItem, PackModel, RefSite } from './model.js';

const RULES = new Map(RULE_METADATA.map((r) => [r.code, r]));
/** docs/behaviour.md, published beside rules.md. */
const BEHAVIOUR_DOCS_URL = RULES_DOCS_URL.replace(/rules$/, 'behaviour');

/** What an item of each collection is called. */
export const ITEM_NOUN: Record<Collection, string> = {
  automations: 'automation',
  smartLists: 'smart list',
  messageTemplates: 'message template',
  pipelines: 'pipeline',
  resources: 'resource',
  assets: 'asset',
};

export function hover(view: DocumentView, position: Position): Hover | null {
  const parts: string[] = [];
  let range;
  const offset = view.toModel(position);
  const hit = offset === undefined ? undefined : view.index.at(view.file, offset);
  if (hit) {
    const text = hitText(view.model, hit);
    if (text) {
      parts.push(text);
      range = view.range(hit.span);
    }
  }
  const tag = mergeTagHover(view, position);
  if (tag) {
    parts.push(tag.text);
    range ??= tag.range;
  }
  for (const d of view.diagnostics ?? [])
    if (contains(d.range, position)) parts.push(findingText(String(d.code), d.data as FindingData | undefined));
  return parts.length ? { contents: { kind: 'markdown', value: parts.join('\n\n---\n\n') }, ...(range ? { range } : {}) } : null;
}

function hitText(model: PackModel, hit: Hit): string | undefined {
  switch (hit.what) {
    case 'kind': {
      const block = model.blocks[hit.block];
      const text = kindText(block.kind);
      const here = [...(block.startedBy ?? []).map((w) => `- started by ${w}`), ...(block.starts ?? []).map((w) => `- ${w}`)];
      return text && here.length
        ? `${text}\n\n**In this pack** (the effects model, [behaviour.md](${BEHAVIOUR_DOCS_URL})):\n${here.join('\n')}`
        : text;
    }
    case 'item':
      return `${itemTitle(model.items[hit.item])}: the key other items use to name it.`;
    case 'ref':
      return refText(model, model.refs[hit.ref]);
    case 'url': {
      const asset = model.items[model.urls[hit.url].asset];
      return `The address of ${itemTitle(asset)}: installing uploads the image and writes its copy's address here.`;
    }
  }
}

/** The catalog's entry for a block kind: its label, what it does, its outputs and config fields. */
export function kindText(kind: string): string | undefined {
  const info = nodeKindInfo(kind);
  if (!info) return undefined;
  const outputs = info.outputs === 'dynamic' ? 'the outcomes its config declares' : info.outputs.map((o) => `\`${o}\``).join(', ');
  const lines = [`**${info.label}** \`${info.kind}\` (${info.group})`, '', info.description, '', `Outputs: ${outputs}`];
  if (info.fields.length) lines.push('', 'Config fields:', ...info.fields.map((f) => `- ${fieldLine(f)}`));
  return lines.join('\n');
}

export function fieldLine(f: ConfigField): string {
  const type = f.ref ? `${f.type} (${f.ref})` : f.values ? f.values.map((v) => `\`${v}\``).join(' \\| ') : f.type;
  return `\`${f.name}\`${f.required ? ' (needed)' : ''}: ${f.label}, ${type}${f.help ? `. ${f.help}` : ''}`;
}

export function itemTitle(it: PackItem): string {
  const noun =
    it.stage !== undefined
      ? 'pipeline stage'
      : it.collection === 'resources' && it.kind
        ? `${it.kind} resource`
        : it.collection === 'assets' && it.kind
          ? `${it.kind} asset`
          : ITEM_NOUN[it.collection];
  return `${noun} ${it.name ? `**${it.name}** ` : ''}\`${it.key}\``;
}

/** What a reference binds to: an item of this pack, or a workspace object matched by the name its automation's references give. */
function refText(model: PackModel, r: RefSite): string {
  if (r.target !== undefined) return `\`${r.type}\` reference: ${itemTitle(model.items[r.target])}, in this pack.`;
  const declared =
    r.automation === undefined
      ? undefined
      : model.automations[r.automation]?.references.find((d) => d && d.type === r.type && d.id === r.id);
  if (declared?.name)
    return `\`${r.type}\` reference: the workspace object named "${declared.name}"${declared.detail ? ` (${declared.detail})` : ''}, matched by name when the pack is installed.`;
  return `\`${r.type}\` reference \`${r.id}\`: not an item of this pack, and its automation's references give no name to match it by in the workspace.`;
}

/** A finding's rule: what it checks, the longer explanation docs/rules.md gives, the finding's hint. */
export function findingText(code: string, data: FindingData | undefined): string {
  const rule = RULES.get(code);
  const lines = [`**${code}**${rule ? ` (${rule.severity}): ${rule.description}` : ''}`];
  if (rule?.docs) lines.push('', rule.docs);
  if (data?.hint) lines.push('', `Hint: ${data.hint}`);
  lines.push('', `[docs/rules.md](${ruleDocsUrl(code)})`);
  return lines.join('\n');
}

function contains(range: { start: Position; end: Position }, p: Position): boolean {
  const after = (a: Position, b: Position) => a.line > b.line || (a.line === b.line && a.character >= b.character);
  return after(p, range.start) && after(range.end, p);
}
