// What diffPacks could not pair, in words: the one statement of it (the CLI's diff refuses such a
// pack with it).
import { count } from '../text.js';
import type { UnpairedItem } from './types.js';

/**
 * What diffPacks could not pair (its `unpaired`, or those of one side), said as a list of places:
 * `messageTemplates[0] has no string key; messageTemplates[1], messageTemplates[5] share key
 * "tpl-follow-up"; automations[0].document.graph.nodes[1], automations[0].document.graph.nodes[4]
 * share id "tag"`. The places of one problem are one entry (the items of a kind without a key, the
 * items or stages, nodes, edges of one item sharing a key or id); at most `limit` entries are
 * listed, then how many more. Keys are quoted as JSON strings.
 */
export function describeUnpaired(unpaired: readonly UnpairedItem[], limit = 10): string {
  const said = unpairedEntries(unpaired);
  return said.slice(0, limit).join('; ') + (said.length > limit ? `; and ${count(said.length - limit)} more` : '');
}

/**
 * describeUnpaired's entries, one a problem, in the order first met. `itemPlace` may name an item
 * itself (an editor adds its name: `automations[0] “Welcome”`); by default `automations[0]`.
 * Places inside an item (a stage, node, edge) are always its path.
 */
export function unpairedEntries(
  unpaired: readonly UnpairedItem[],
  itemPlace: (u: UnpairedItem) => string = (u) => `${u.kind}[${u.index}]`,
): string[] {
  const groups = new Map<string, { at: string[]; one: string; many: string }>();
  for (const u of unpaired) {
    const w = u.within;
    const at = w ? `${u.kind}[${u.index}].${w.list === 'stages' ? 'stages' : `document.graph.${w.list}`}[${w.index}]` : itemPlace(u);
    const name = w && w.list !== 'stages' ? 'id' : 'key';
    const key = JSON.stringify(w ? w.key : u.key);
    // One entry per problem: every place of a kind (or of one item's list) with no key, or sharing one key.
    const group = [u.side, u.kind, w ? u.index : '', w?.list ?? '', u.reason === 'no-key' ? '' : `${u.reason}:${key}`].join('\u0000');
    const words =
      u.reason === 'no-key'
        ? { one: `has no string ${name}`, many: `have no string ${name}` }
        : u.reason === 'duplicate-key'
          ? { one: `has ${name} ${key}, which repeats`, many: `share ${name} ${key}` }
          : { one: `has ${name} ${key}, which the other release repeats`, many: `have ${name} ${key}, which the other release repeats` };
    const g = groups.get(group);
    if (g) g.at.push(at);
    else groups.set(group, { at: [at], ...words });
  }
  return [...groups.values()].map((g) => `${g.at.join(', ')} ${g.at.length === 1 ? g.one : g.many}`);
}

const PARTS = [
  { list: undefined, plural: 'items', one: 'item', by: 'key' },
  { list: 'stages', plural: 'pipeline stages', one: 'stage', by: 'key' },
  { list: 'nodes', plural: 'automation nodes', one: 'node', by: 'id' },
  { list: 'edges', plural: 'automation edges', one: 'edge', by: 'id' },
] as const;

const listed = (words: readonly string[], last: string) =>
  words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} ${last} ${words[words.length - 1]}`;

/**
 * Why a diff of a pack with `unpaired` (those of one side) would be a guess, as a predicate for the
 * pack: `has items diff cannot pair by key, so it cannot say which were added, removed or changed:
 * messageTemplates[0] has no string key; …; give each item a key of its own` (describeUnpaired's
 * list), naming the stages, nodes or edges when those are what cannot be paired.
 */
export function cannotPairReason(unpaired: readonly UnpairedItem[], limit = 10): string {
  const parts = PARTS.filter((p) => unpaired.some((u) => u.within?.list === p.list));
  const by = [...new Set(parts.map((p) => p.by))];
  const a = by.length > 1 ? 'a key or id' : by[0] === 'id' ? 'an id' : 'a key';
  return `has ${listed(
    parts.map((p) => p.plural),
    'and',
  )} diff cannot pair by ${by.join(' or ')}, so it cannot say which were added, removed or changed: ${describeUnpaired(unpaired, limit)}; give each ${listed(
    parts.map((p) => p.one),
    'or',
  )} ${a} of its own`;
}
