// The form of what is shown when it is not an automation's canvas: the pack's own fields (with
// what to do first when the pack has no items), or an item of another kind.
import type { Obj } from '../model/json.js';
import { ITEM_KINDS, items, type PackValue, type Target } from '../model/pack.js';
import { FirstRun } from './FirstRun.js';
import { AssetEditor, PackFields, PipelineEditor, ResourceEditor, SmartListEditor, TemplateEditor } from './ItemEditors.js';

type EditItem = (fn: (item: Obj) => Obj, coalesce?: string) => void;

export function ItemPane({
  pack,
  target,
  edit,
  notify,
  onAddAutomation,
}: {
  pack: PackValue;
  target: Target;
  edit: EditItem;
  notify: (t: string) => void;
  onAddAutomation: () => void;
}) {
  if (target.kind === 'pack') {
    const empty = ITEM_KINDS.every((kind) => items(pack, kind).length === 0);
    const intro = empty && (
      <FirstRun inline title="This pack is empty" action="Add an automation" onAction={onAddAutomation}>
        A pack carries automations, and the smart lists, templates, pipelines and resources they use. Start with an automation.
      </FirstRun>
    );
    return <PackFields pack={pack} edit={edit} intro={intro} />;
  }
  const item = items(pack, target.kind)[target.index];
  if (!item) return <p className="empty">Nothing selected.</p>;
  switch (target.kind) {
    case 'messageTemplates':
      return <TemplateEditor item={item} edit={edit} assets={pack.assets} />;
    case 'smartLists':
      return <SmartListEditor item={item} edit={edit} />;
    case 'pipelines':
      return <PipelineEditor item={item} edit={edit} />;
    case 'resources':
      return <ResourceEditor item={item} edit={edit} />;
    default:
      return <AssetEditor item={item} edit={edit} notify={notify} />;
  }
}
