// Every item of the pack by kind, with counts and error/warning badges.
import { ITEM_KINDS, KIND_LABELS, itemName, items, newItem, addItem, removeItem, type PackValue, type Target, type ItemKind } from '../model/pack.js';
import { itemKey, type Counts, type FindingIndex } from '../model/findings.js';

function Badges({ c }: { c?: Counts }) {
  if (!c) return null;
  return (
    <>
      {c.error > 0 && <span className="badge error" aria-label={`${c.error} errors`}>{c.error}</span>}
      {c.warning > 0 && <span className="badge warning" aria-label={`${c.warning} warnings`}>{c.warning}</span>}
    </>
  );
}

export function Sidebar(props: { pack: PackValue; target: Target; findings: FindingIndex; select: (t: Target) => void; commit: (fn: (p: PackValue) => PackValue) => void }) {
  const { pack, target, findings } = props;
  const add = (kind: ItemKind) => {
    const r = addItem(pack, kind, newItem(pack, kind));
    props.commit(() => r.pack);
    props.select({ kind, index: r.index });
  };
  return (
    <nav className="sidebar" aria-label="Pack items">
      <ul>
        <li>
          <button aria-current={target.kind === 'pack'} onClick={() => props.select({ kind: 'pack' })}>
            <span className="name">Pack: {String(pack.name ?? '')}</span>
            <Badges c={findings.pack} />
          </button>
        </li>
      </ul>
      {ITEM_KINDS.map((kind) => {
        const list = items(pack, kind);
        return (
          <section key={kind} aria-label={KIND_LABELS[kind]}>
            <h3>
              <span>{KIND_LABELS[kind]} <span className="badge count" aria-label={`${list.length} ${KIND_LABELS[kind]}`}>{list.length}</span></span>
              <button aria-label={`Add ${KIND_LABELS[kind]}`} onClick={() => add(kind)}>+</button>
            </h3>
            <ul>
              {list.map((item, i) => {
                const current = target.kind === kind && target.index === i;
                return (
                  <li key={i} style={{ display: 'flex' }}>
                    <button aria-current={current} onClick={() => props.select({ kind, index: i })} data-item={`${kind}/${String(item.key)}`}>
                      <span className="name">{itemName(kind, item)}</span>
                      <Badges c={findings.byItem.get(itemKey(kind, i))} />
                    </button>
                    {current && (
                      <button style={{ width: 'auto' }} aria-label={`Remove ${itemName(kind, item)}`} title="Remove" onClick={() => {
                        if (!confirm(`Remove ${itemName(kind, item)}?`)) return;
                        props.commit((p) => removeItem(p, kind, i));
                        props.select({ kind: 'pack' });
                      }}>×</button>
                    )}
                  </li>
                );
              })}
            </ul>
          </section>
        );
      })}
    </nav>
  );
}
