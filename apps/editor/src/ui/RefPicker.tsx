// Live references: beside a block config field that names a workspace item (a tag, a template, a
// member, a pipeline stage…), a searchable picker of the pack's own items and the connected
// workspace's real ones, and a mark saying what installing would do with the reference — bound,
// created, ambiguous or unresolved — from core's markReferences, as `setup-pack plan` binds it.
import { useContext, useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { normalizeName, pickedReferenceId, type ReferenceType, type WorkspaceObject } from '@setup-pack/core';
import { useWorkspace } from '../workspace/catalog.js';
import { ReferencesContext } from './BlockNode.js';

const words = (type: ReferenceType) => type.replace(/_/g, ' ');
/** At most this many matches are listed; typing narrows the rest. */
const SHOWN = 50;

/** What a pick writes: a pack key, or a workspace object's reference id and the name it binds by. */
export interface Picked {
  id: string;
  name?: string;
}

/**
 * The id a picked workspace object is written with: the id a reference of this type already
 * uses for that name, else the id `setup-pack export` derives (`tag-buyer-lead`) that means
 * nothing else in the pack.
 */
export function idForWorkspaceObject(
  type: ReferenceType,
  name: string,
  listed: readonly { type: string; id: string; name: string }[],
  packKeys: Iterable<string>,
): string {
  const same = listed.find((r) => r.type === type && r.name !== '' && normalizeName(r.name) === normalizeName(name));
  if (same) return same.id;
  return pickedReferenceId(type, name, [...packKeys, ...listed.map((r) => r.id)]);
}

/** Opening reads the type's objects once; a failed read is not retried on every render (Check or Refresh does). */
function useReadOnOpen(open: boolean, ws: ReturnType<typeof useWorkspace>, read: boolean, type: ReferenceType) {
  const asked = useRef(false);
  useEffect(() => {
    if (!open) asked.current = false;
    else if (ws && !read && !asked.current) {
      asked.current = true;
      void ws.ensureType(type);
    }
  }, [open, ws, read, type]);
}

export function RefPicker(props: {
  type: ReferenceType;
  label: string;
  listed: readonly { type: string; id: string; name: string }[];
  onPick: (picked: Picked) => void;
}) {
  const { type } = props;
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState('');
  const ws = useWorkspace();
  const refs = useContext(ReferencesContext)?.refs;
  const objects = ws?.objectsOf(type);
  const dialogId = useId();
  useReadOnOpen(open, ws, objects !== undefined, type);

  const q = query.trim().toLowerCase();
  const matches = (name: string, id: string) => q === '' || name.toLowerCase().includes(q) || id.toLowerCase().includes(q);
  // Listed only while open: a closed picker beside a field being typed in filters nothing.
  const own = open
    ? [...(refs?.get(type) ?? [])].map(([key, item]) => ({ key, name: item.name ?? key })).filter((x) => matches(x.name, x.key))
    : [];
  const real = open ? (objects ?? []).filter((o) => matches(String(o.name ?? ''), o.id)) : [];
  const packKeys = () => [...(refs?.values() ?? [])].flatMap((m) => [...m.keys()]);
  // Closing (a pick, Escape) gives the focus back to Choose…: the list it was in is gone.
  const chooseButton = useRef<HTMLButtonElement>(null);
  const close = () => {
    setOpen(false);
    chooseButton.current?.focus();
  };
  const pickObject = (o: WorkspaceObject) => {
    const name = String(o.name ?? o.id);
    props.onPick({ id: idForWorkspaceObject(type, name, props.listed, packKeys()), name });
    close();
  };
  // ↓ and ↑ move between the search box and the choices, as in the block palette; Enter on a choice picks it.
  const onListKeys = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key === 'Escape') return close();
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    const stops = [...e.currentTarget.querySelectorAll<HTMLElement>('input, button.linkish')];
    const at = stops.indexOf(document.activeElement as HTMLElement);
    const next = stops[Math.max(0, Math.min(stops.length - 1, at + (e.key === 'ArrowDown' ? 1 : -1)))];
    if (next) {
      e.preventDefault();
      next.focus();
    }
  };

  return (
    <div className="ref-picker">
      <button
        type="button"
        ref={chooseButton}
        aria-expanded={open}
        aria-controls={dialogId}
        aria-label={`Choose ${props.label}`}
        onClick={() => setOpen((o) => !o)}
      >
        Choose…
      </button>
      {open && (
        <div
          className="ref-picker-list"
          id={dialogId}
          role="dialog"
          aria-label={`Choose ${props.label}`}
          data-own-keys
          onKeyDown={onListKeys}
        >
          <input
            type="search"
            aria-label={`Search ${words(type)}s`}
            placeholder={`Search ${words(type)}s`}
            value={query}
            autoFocus
            onChange={(e) => setQuery(e.target.value)}
          />
          {own.length > 0 && (
            <ul aria-label="In this pack">
              <li className="help">In this pack</li>
              {own.slice(0, SHOWN).map((x) => (
                <li key={`pack:${x.key}`}>
                  <button type="button" className="linkish" onClick={() => (props.onPick({ id: x.key }), close())}>
                    {x.name} <code>{x.key}</code>
                  </button>
                </li>
              ))}
            </ul>
          )}
          {ws && (
            <ul aria-label={`In ${ws.connected.workspace.name}`}>
              <li className="help">In {ws.connected.workspace.name}</li>
              {!objects && (
                <li className="help" role="status">
                  {ws.status || `Reading ${words(type)}s…`}
                </li>
              )}
              {objects && real.length === 0 && (
                <li className="help">
                  No {words(type)} {q ? `matches “${query.trim()}”` : 'yet'}.
                </li>
              )}
              {real.slice(0, SHOWN).map((o) => (
                <li key={`ws:${o.id}`}>
                  <button type="button" className="linkish" onClick={() => pickObject(o)}>
                    {String(o.name ?? o.id)}
                  </button>
                </li>
              ))}
              {real.length > SHOWN && <li className="help">{real.length - SHOWN} more: type to narrow.</li>}
            </ul>
          )}
          {!ws && own.length === 0 && (
            <p className="help">
              No {words(type)} in this pack. Connect to a workspace to choose its {words(type)}s.
            </p>
          )}
        </div>
      )}
    </div>
  );
}

/** What installing does with the reference `type:id` in the connected workspace, in words. */
export function RefMark({ type, id }: { type: ReferenceType; id: string }) {
  const ws = useWorkspace();
  if (!ws || id === '') return null;
  const where = ws.connected.workspace.name;
  const objects = ws.objectsOf(type);
  if (!objects)
    return (
      <p className="help ref-mark" data-mark="unread">
        Not checked against {where} yet.{' '}
        <button type="button" className="link" disabled={ws.busy} onClick={() => void ws.ensureType(type)}>
          Check
        </button>
      </p>
    );
  const mark = ws.marks?.get(`${type}:${id}`);
  if (!mark || mark.state === 'pack') return null;
  const label = words(type);
  const text =
    mark.state === 'bound'
      ? `✓ ${String(objects.find((o) => o.id === mark.workspaceId)?.name ?? mark.name ?? id)} in ${where}${mark.source === 'name' ? ', matched by name' : mark.source === 'ledger' ? ', as the last install bound it' : ''}.`
      : mark.state === 'create'
        ? `+ Installing creates the ${label} “${mark.name}” in ${where}.`
        : mark.state === 'ambiguous'
          ? `! Several ${label}s in ${where} are named “${mark.name}”: choose the one meant.`
          : mark.name
            ? `✗ No ${label} named “${mark.name}” in ${where}: choose one, or the install stops here.`
            : `✗ ${id} has no name to find it by in ${where}: choose the ${label} it means.`;
  return (
    <p className={`help ref-mark ${mark.state}`} data-mark={mark.state} title={mark.message}>
      {text}
    </p>
  );
}
