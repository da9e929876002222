// Two releases side by side as one picture: item changes listed, and the chosen automation's
// graph with added, removed and changed blocks highlighted (positions never count).
import { useMemo, useState } from 'react';
import { count, packItemsByReferenceType, plural, type ItemChange } from '@setup-pack/core';
import {
  comparePacks,
  describeItemChange,
  describePackFields,
  describeUnpaired,
  mayBeUnpaired,
  mergedAutomation,
} from '../model/diffview.js';
import { KIND_LABELS, type PackValue } from '../model/pack.js';
import { Canvas } from './Canvas.js';

/** A release's file name without its folders (the full path stays in the tooltip). */
const baseName = (name: string) => name.slice(name.lastIndexOf('/') + 1) || name;

export interface Release {
  pack: PackValue;
  name: string;
}

export function DiffView(props: { old: Release; new: Release; onClose: () => void }) {
  const diff = useMemo(() => comparePacks(props.old.pack, props.new.pack), [props.old, props.new]);
  const unpaired = useMemo(() => describeUnpaired(diff, props.old.pack, props.new.pack), [diff, props.old, props.new]);
  const automations = diff.items.filter((i) => i.kind === 'automations');
  const [chosen, setChosen] = useState<ItemChange | undefined>(automations.find((a) => a.change === 'changed') ?? automations[0]);
  const refs = useMemo(() => packItemsByReferenceType(props.new.pack), [props.new]);
  const merged = useMemo(
    () => (chosen ? mergedAutomation(props.old.pack, props.new.pack, chosen) : undefined),
    [chosen, props.old, props.new],
  );
  return (
    <div className="body" style={{ gridTemplateColumns: '320px 1fr' }}>
      <aside className="sidebar" aria-label="Changes" style={{ padding: '6px 12px' }}>
        <p className="diff-releases">
          <span className="release" title={props.old.name}>
            Old: <strong>{baseName(props.old.name)}</strong> ({diff.oldVersion})
          </span>
          <span className="release" title={props.new.name}>
            New: <strong>{baseName(props.new.name)}</strong> ({diff.newVersion})
          </span>
          <span>version {diff.versionChange}</span>
          {!diff.packIdMatches && <span className="chg-removed">different packId</span>}
        </p>
        <button onClick={props.onClose}>Back to editor</button>
        {unpaired.length > 0 && <NotCompared diff={diff} groups={unpaired} />}
        {diff.fields.length > 0 && (
          <div aria-label="Pack fields changed">
            <p>Pack fields changed: {diff.fields.join(', ')}</p>
            {describePackFields(diff).map((line) => (
              <div className="help" key={line}>
                {line}
              </div>
            ))}
          </div>
        )}
        {diff.items.length === 0 && (
          <p className="empty">{unpaired.length > 0 ? 'No other changes among the items compared.' : 'No changes.'}</p>
        )}
        <ul className="diff-list" aria-label="Item changes" style={{ listStyle: 'none', padding: 0 }}>
          {diff.items.map((c) => (
            <li key={`${c.kind}/${c.key}`} className={`chg-${c.change}`} data-change={c.change} data-item={`${c.kind}/${c.key}`}>
              {c.kind === 'automations' ? (
                <button className="diff-item" aria-current={chosen === c} onClick={() => setChosen(c)}>
                  {c.change}: {KIND_LABELS[c.kind]} · {c.name ?? c.key}
                </button>
              ) : (
                <span>
                  {c.change}: {KIND_LABELS[c.kind]} · {c.name ?? c.key}
                </span>
              )}
              {describeItemChange(c).map((line) => (
                <div className="help" key={line}>
                  {line}
                </div>
              ))}
              {mayBeUnpaired(diff, c) && (
                <div className="unpaired-note">
                  Perhaps one of the {c.change === 'removed' ? 'new' : 'old'} release’s {KIND_LABELS[c.kind].toLowerCase()} not compared
                  (its key went wrong), not {c.change}.
                </div>
              )}
            </li>
          ))}
        </ul>
      </aside>
      <main className="main" aria-label="Diff canvas">
        {merged && chosen ? (
          <Canvas key={`${chosen.key}`} doc={merged.doc} automation={-1} diff={merged.marks} edgeDiff={merged.edgeMarks} refs={refs} />
        ) : (
          <p className="empty">No automation changed.</p>
        )}
      </main>
    </div>
  );
}

/**
 * The items core's diff could not pair by key (no string key, a key repeated in its kind), which
 * the comparison leaves out: said first, per release, so the list below is not read as the whole
 * story (`setup-pack diff` refuses such packs, naming them).
 */
function NotCompared({ diff, groups }: { diff: ReturnType<typeof comparePacks>; groups: ReturnType<typeof describeUnpaired> }) {
  const on = (side: 'old' | 'new') => diff.unpaired.filter((u) => u.side === side).length;
  const counts = [
    on('new') && `${plural(on('new'), 'item')} in the new release`,
    on('old') && (on('new') ? `${count(on('old'))} in the old` : `${plural(on('old'), 'item')} in the old release`),
  ]
    .filter(Boolean)
    .join(' and ');
  return (
    <section className="unpaired" role="region" aria-label="Items not compared">
      <p>
        <strong>Not compared:</strong> {counts} cannot be paired by key, so this comparison leaves{' '}
        {diff.unpaired.length === 1 ? 'it' : 'them'} out and cannot say whether {diff.unpaired.length === 1 ? 'it was' : 'they were'} added,
        removed or changed. Give each item a key of its own (its findings say more).
      </p>
      <ul>
        {groups.flatMap((g) =>
          g.lines.map((line) => (
            <li key={`${g.side}:${line}`}>
              <span className="side">{g.side === 'old' ? 'Old' : 'New'} release: </span>
              {line}
            </li>
          )),
        )}
      </ul>
    </section>
  );
}
