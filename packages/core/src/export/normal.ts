// What a pack looks like after install then export, when nothing was edited in the workspace and
// every reference bound to an object of the same name: the normalisations the format lets the
// service make. docs/export.md lists them; the round-trip tests compare export(install(P)) with
// roundTripForm(P) in canonical form.
import { fixedStageProbability } from '../pipeline.js';
import { canonicalize } from '../format/canonical.js';
import { ITEM_KINDS, type ItemKind, type Pack, type Reference } from '../types.js';

export function roundTripForm(input: Pack): Pack {
  const pack = JSON.parse(JSON.stringify(input)) as Pack & Record<string, unknown>;
  // exportedAt is the time of the export.
  delete pack.exportedAt;
  // A brand of null is no brand; empty item lists are left out; items come sorted by key.
  if (pack.brand === null) delete pack.brand;
  for (const k of ITEM_KINDS) {
    const list = pack[k] as { key: string }[] | undefined;
    if (!list?.length) delete pack[k];
    else list.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
  if (pack.messageTemplates) pack.messageTemplates = pack.messageTemplates.map((t) => storedForm('messageTemplates', t));
  if (pack.pipelines) pack.pipelines = pack.pipelines.map((p) => storedForm('pipelines', p));
  // A reference listed twice (same type and id) is listed once.
  for (const a of pack.automations ?? []) {
    if (!a.document.references) continue;
    const seen = new Set<string>();
    a.document.references = a.document.references.filter((r: Reference) => {
      const k = `${r.type}:${r.id}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  }
  return canonicalize(pack);
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * One item as the service stores it and gives it back: a template's richTextDoc of null is left
 * out; OPEN, the default stage type, is left out; won stages are stored at 100 and lost at 0. The
 * same item written either way is the same item (roundTripForm, and diffPacks, which must not
 * call an exported install changed for them). Returns a copy where something differs.
 */
export function storedForm<T>(kind: ItemKind, item: T): T {
  if (!isObj(item)) return item;
  if (kind === 'messageTemplates' && item.richTextDoc === null) {
    const { richTextDoc: _, ...rest } = item;
    return rest as T;
  }
  if (kind === 'pipelines' && Array.isArray(item.stages)) return { ...item, stages: item.stages.map(storedStage) };
  return item;
}

function storedStage(stage: unknown): unknown {
  if (!isObj(stage)) return stage;
  const s = { ...stage };
  if (s.stageType === 'OPEN') delete s.stageType;
  const fixed = fixedStageProbability(s.stageType);
  if (fixed !== undefined) s.probability = fixed;
  return s;
}
