// What a block does in this pack, by the effects model (core's cascade): an action's events and the
// automations they start, and a trigger's starters elsewhere in the pack. Read by the hover on a
// block's kind, so an author sees the cascade where they write it. Only a pack without errors has
// one: the model of a pack that does not validate carries none.
import { analyseFlow, edgeWords, type Pack } from '@setup-pack/core';
import type { PackModel } from './model.js';

export function addBehaviour(model: PackModel, pack: Pack): void {
  // The cascade validatePack's rules built for this same value, when they did.
  const { flow, cascade } = analyseFlow(pack);
  const at = new Map(model.blocks.map((b, i) => [`${b.automation}:${b.node}`, i]));
  for (const e of cascade.edges) {
    const from = flow.automations[e.from];
    const to = flow.automations[e.to];
    const words = edgeWords(flow, e);
    const does = e.event === 'run' ? words : `${words}, which starts "${to.name}"`;
    const source = at.get(`${e.from}:${e.node}`);
    const trigger = at.get(`${e.to}:${e.trigger}`);
    if (source !== undefined) (model.blocks[source].starts ??= []).push(does);
    if (trigger !== undefined) (model.blocks[trigger].startedBy ??= []).push(`"${from.name}" block "${from.nodes[e.node].id}": ${words}`);
  }
}
