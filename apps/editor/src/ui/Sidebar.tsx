// Every item of the pack by kind, with counts and error/warning badges. Each kind's section
// re-renders only when its own array (or the findings) change, so typing stays cheap on a pack
// at every limit.
import { memo, useCallback, useEffect, useRef } from 'react';
import { count, plural } from '@setup-pack/core';
import {
  ITEM_KINDS,
  KIND_LABELS,
  itemName,
  newItem,
  addItem,
  removeItem,
  type PackValue,
  type Target,
  type ItemKind,
} from '../model/pack.js';
import { itemKey, type FindingIndex } from '../model/findings.js';
import { objs } from '../model/json.js';
import { renderCounts } from './renderCounts.js';

function Badges({ errors, warnings }: { errors: number; warnings: number }) {
  return (
    <>
      {errors > 0 && (
        <span className="badge error" aria-label={plural(errors, 'error')}>
          {count(errors)}
        </span>
      )}
      {warnings > 0 && (
        <span className="badge warning" aria-label={plural(warnings, 'warning')}>
          {count(warnings)}
        </span>
      )}
    </>
  );
}

type Commit = (fn: (p: PackValue) => PackValue) => void;

// One item: re-rendered only when that item, its badge numbers or whether it is current change
// (an edit replaces one automation of a hundred, and a new validation result that leaves an
// item's counts as they were leaves its row alone: the counts are passed as numbers).
const rowStyle = { display: 'flex' };
const ItemRow = memo(function ItemRow({
  kind,
  index,
  item,
  current,
  errors,
  warnings,
  select,
  commit,
  removed,
}: {
  kind: ItemKind;
  index: number;
  item: Record<string, unknown>;
  current: boolean;
  errors: number;
  warnings: number;
  select: (t: Target) => void;
  commit: Commit;
  removed: () => void;
}) {
  renderCounts.sidebarRows++;
  return (
    <li style={rowStyle}>
      <button aria-current={current} onClick={() => select({ kind, index })} data-item={`${kind}/${String(item.key)}`}>
        <span className="name">{itemName(kind, item)}</span>
        <Badges errors={errors} warnings={warnings} />
      </button>
      {current && (
        <button
          style={{ width: 'auto' }}
          aria-label={`Remove ${itemName(kind, item)}`}
          title="Remove"
          onClick={() => {
            if (!confirm(`Remove ${itemName(kind, item)}?`)) return;
            removed();
            commit((p) => removeItem(p, kind, index));
            select({ kind: 'pack' });
          }}
        >
          ×
        </button>
      )}
    </li>
  );
});

const Section = memo(function Section(props: {
  kind: ItemKind;
  list: unknown;
  current: number;
  findings: FindingIndex;
  select: (t: Target) => void;
  commit: Commit;
  removed: () => void;
}) {
  const { kind, findings, current } = props;
  const list = objs(props.list);
  const add = () => {
    let index = 0;
    props.commit((p) => {
      const r = addItem(p, kind, newItem(p, kind));
      index = r.index;
      return r.pack;
    });
    props.select({ kind, index });
  };
  return (
    <section aria-label={KIND_LABELS[kind]}>
      <h2>
        <span>
          {KIND_LABELS[kind]}{' '}
          <span className="badge count" aria-label={`${count(list.length)} ${KIND_LABELS[kind]}`}>
            {count(list.length)}
          </span>
        </span>
        <button aria-label={`Add ${KIND_LABELS[kind]}`} onClick={add}>
          +
        </button>
      </h2>
      <ul>
        {list.map((item, i) => {
          const c = findings.byItem.get(itemKey(kind, i));
          return (
            <ItemRow
              key={i}
              kind={kind}
              index={i}
              item={item}
              current={current === i}
              errors={c?.error ?? 0}
              warnings={c?.warning ?? 0}
              select={props.select}
              commit={props.commit}
              removed={props.removed}
            />
          );
        })}
      </ul>
    </section>
  );
});

export function Sidebar(props: { pack: PackValue; target: Target; findings: FindingIndex; select: (t: Target) => void; commit: Commit }) {
  const { pack, target, findings } = props;
  // An item removed with its × takes the button with it: the focus goes, after the render, to the
  // row of what is shown instead, not to the page's top.
  const nav = useRef<HTMLElement>(null);
  // With the pack it was asked for: an earlier render's effects may run after the click.
  const focusShown = useRef<PackValue>(undefined);
  const packRef = useRef(pack);
  packRef.current = pack;
  const removed = useCallback(() => {
    focusShown.current = packRef.current;
  }, []);
  useEffect(() => {
    if (!focusShown.current || focusShown.current === pack) return;
    focusShown.current = undefined;
    nav.current?.querySelector<HTMLElement>('button[aria-current="true"]')?.focus();
  });
  return (
    <nav className="sidebar" aria-label="Pack items" ref={nav}>
      <ul>
        <li>
          <button aria-current={target.kind === 'pack'} onClick={() => props.select({ kind: 'pack' })}>
            <span className="name">Pack: {String(pack.name ?? '')}</span>
            <Badges errors={findings.pack.error} warnings={findings.pack.warning} />
          </button>
        </li>
      </ul>
      {ITEM_KINDS.map((kind) => (
        <Section
          key={kind}
          kind={kind}
          list={pack[kind]}
          current={target.kind === kind ? target.index : -1}
          findings={findings}
          select={props.select}
          commit={props.commit}
          removed={removed}
        />
      ))}
    </nav>
  );
}
