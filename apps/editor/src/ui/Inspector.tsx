// Right-hand panel for an automation: the selected block's config form (from the catalog, plus
// raw JSON for unknown fields), or the automation's fields, settings and references.
import {
  count,
  NODE_KINDS,
  nodeKindInfo,
  numberLimitsOf,
  plural,
  REFERENCE_TYPES,
  type ConfigField,
  type ReferenceType,
} from '@setup-pack/core';
import { fieldAsk, fieldHelp } from '../model/fieldWords.js';
import { blockIcon } from './icons.js';
import { asArr, asObj, isObj, setKey, str, type Obj } from '../model/json.js';
import { blockAfterDelete, deleteElements, duplicateNodes, nodeAt, renameNode, updateNode } from '../model/graph.js';
import { fieldText, fieldValue, setConfigField, setUnknownConfig, unknownConfig } from '../model/config.js';
import { listedReferences, updateReference, withNamedReference } from '../model/references.js';
import { RefMark, RefPicker, type Picked } from './RefPicker.js';
import { CheckField, FieldNote, JsonField, NumberField, SelectField, TextField } from './fields.js';
import { focusFirst, useFocusAfter } from './focusAfter.js';
import { useContext, useRef, useState } from 'react';
import { ReferencesContext } from './BlockNode.js';
import { isCondition, isGroup, newGroup } from '../model/filters.js';
import { FilterNode } from './ItemEditors.js';

/** The schema property the daily send limit is (its type: an integer). */
const DAILY_SEND_LIMIT = { schema: 'settings', property: 'daily_send_limit' };
/** Its limits, as the schema states them. */
const DAILY_SEND_LIMIT_HELP = (({ minimum, maximum }) => `${count(minimum ?? 0)} to ${count(maximum ?? 0)} sends a day`)(
  numberLimitsOf('settings', 'daily_send_limit'),
);

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

type Edit = (fn: (doc: Obj) => Obj, coalesce?: string) => void;

/** A form's Duplicate or Delete (`data-block-action`), acting on blocks by canvas id. */
type BlockAction = 'duplicate' | 'delete';
type Act = (action: BlockAction, ids: string[]) => void;

const sameIds = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((id) => b.includes(id));

export function AutomationInspector(props: {
  doc: Obj;
  item: Obj;
  selected: string[];
  edit: Edit;
  editItem: (fn: (item: Obj) => Obj, coalesce?: string) => void;
  notify: (t: string) => void;
  selectBlocks?: (ids: string[]) => void;
}) {
  const { doc, selected, edit } = props;
  const pane = useRef<HTMLDivElement>(null);
  // A Duplicate or Delete takes its button away with the form: the focus goes to the same button
  // in the form of the blocks then selected (the copies; the block that took a deleted one's
  // place), or to + Add block when no block is left. Given once the canvas has selected those
  // blocks (the form shown is theirs), read from the selection as last rendered (`shown`).
  const focusAfter = useFocusAfter(doc);
  const shown = useRef(selected);
  shown.current = selected;
  const act: Act = (action, ids) => {
    let blocks: string[] = [];
    let changed = false;
    edit((d) => {
      const r = action === 'duplicate' ? duplicateNodes(d, ids) : { doc: deleteElements(d, ids), ids: [] };
      const next = action === 'delete' ? blockAfterDelete(d, r.doc, ids) : undefined;
      blocks = action === 'duplicate' ? r.ids : next === undefined ? [] : [next];
      changed = r.doc !== d;
      return r.doc;
    });
    if (!changed) return;
    const chosen = blocks;
    focusAfter(
      () =>
        (chosen.length > 0
          ? pane.current?.querySelector<HTMLElement>(`[data-block-action="${action}"]`)
          : document.querySelector<HTMLElement>('.canvas-toolbar [aria-label="Add block"]')
        )?.focus(),
      () => chosen.length === 0 || sameIds(shown.current, chosen),
    );
    props.selectBlocks?.(blocks);
  };
  const node = selected.length === 1 ? nodeAt(doc, selected[0]) : undefined;
  return (
    <div ref={pane}>
      {node ? (
        <NodeForm
          key={selected[0]}
          cid={selected[0]}
          doc={doc}
          node={node}
          edit={edit}
          notify={props.notify}
          act={act}
          onRenamed={(id) => props.selectBlocks?.([id])}
        />
      ) : (
        <AutomationForm {...props} act={act} />
      )}
    </div>
  );
}

function AutomationForm(props: {
  doc: Obj;
  item: Obj;
  selected: string[];
  edit: Edit;
  editItem: (fn: (item: Obj) => Obj, coalesce?: string) => void;
  act: Act;
}) {
  const { doc, selected, edit, act } = props;
  return (
    <div>
      <h2>Automation</h2>
      {selected.length > 1 && (
        <p className="help">
          {count(selected.length)} blocks selected.{' '}
          <button data-block-action="duplicate" onClick={() => act('duplicate', selected)}>
            Duplicate
          </button>{' '}
          <button data-block-action="delete" onClick={() => act('delete', selected)}>
            Delete
          </button>
        </p>
      )}
      <TextField label="Key" path="key" value={str(props.item.key)} onChange={(v) => props.editItem((i) => setKey(i, 'key', v), 'key')} />
      <TextField label="Name" path="document/name" value={str(doc.name)} onChange={(v) => edit((d) => setKey(d, 'name', v), 'name')} />
      <TextField
        label="Description"
        path="document/description"
        multiline
        value={str(doc.description)}
        onChange={(v) => edit((d) => setKey(d, 'description', v || undefined), 'description')}
      />
      <TextField
        label="Category"
        path="document/category"
        value={str(doc.category)}
        onChange={(v) => edit((d) => setKey(d, 'category', v || undefined), 'category')}
      />
      <SettingsForm doc={doc} edit={edit} />
      <ReferencesList doc={doc} edit={edit} />
    </div>
  );
}

const minutesToTime = (m: unknown) =>
  typeof m === 'number' ? `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}` : '';
const timeToMinutes = (t: string) => {
  const m = /^(\d{1,2}):(\d{2})$/.exec(t);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
};

function SettingsForm({ doc, edit }: { doc: Obj; edit: Edit }) {
  const s = isObj(doc.settings) ? doc.settings : undefined;
  const set = (k: string, v: unknown, coalesce?: string) => edit((d) => setKey(d, 'settings', setKey(asObj(d.settings), k, v)), coalesce);
  const days = asArr(s?.send_window_days).filter((x): x is number => typeof x === 'number');
  return (
    <section aria-label="Delivery settings">
      <CheckField
        label="Delivery settings"
        checked={!!s}
        onChange={(on) =>
          edit((d) => setKey(d, 'settings', on ? { allow_reenrollment: false, stop_on_reply: true, daily_send_limit: 500 } : null))
        }
      />
      {s && (
        <>
          <CheckField
            label="Allow re-enrollment"
            path="document/settings/allow_reenrollment"
            checked={s.allow_reenrollment === true}
            onChange={(v) => set('allow_reenrollment', v)}
          />
          <CheckField
            label="Stop on reply"
            path="document/settings/stop_on_reply"
            checked={s.stop_on_reply === true}
            onChange={(v) => set('stop_on_reply', v)}
          />
          <NumberField
            label="Daily send limit"
            path="document/settings/daily_send_limit"
            rule={DAILY_SEND_LIMIT}
            value={s.daily_send_limit}
            onChange={(v) => set('daily_send_limit', v, 'daily')}
            help={DAILY_SEND_LIMIT_HELP}
          />
          <div className="row">
            <TextField
              label="Send window start"
              path="document/settings/send_window_start"
              type="time"
              value={minutesToTime(s.send_window_start)}
              onChange={(v) => set('send_window_start', timeToMinutes(v), 'ws')}
            />
            <TextField
              label="Send window end"
              path="document/settings/send_window_end"
              type="time"
              value={minutesToTime(s.send_window_end)}
              onChange={(v) => set('send_window_end', timeToMinutes(v), 'we')}
            />
          </div>
          <label>Send days</label>
          <div className="row send-days" role="group" aria-label="Send days" data-path="document/settings/send_window_days">
            {DAYS.map((name, i) => (
              <label key={name}>
                <input
                  type="checkbox"
                  aria-label={name}
                  checked={s.send_window_days === undefined || days.includes(i)}
                  onChange={(e) => {
                    const current = s.send_window_days === undefined ? [0, 1, 2, 3, 4, 5, 6] : days;
                    const next = e.target.checked ? [...current, i].sort() : current.filter((d) => d !== i);
                    set('send_window_days', next.length === 7 && s.send_window_days === undefined ? undefined : next);
                  }}
                />
                {name}
              </label>
            ))}
          </div>
          <FieldNote path="document/settings/send_window_days" />
          <CheckField
            label="Skip holidays"
            path="document/settings/send_window_skip_holidays"
            checked={s.send_window_skip_holidays === true}
            onChange={(v) => set('send_window_skip_holidays', v)}
          />
        </>
      )}
    </section>
  );
}

function ReferencesList({ doc, edit }: { doc: Obj; edit: Edit }) {
  const refs = asArr(doc.references);
  // A reference removed takes its Remove with it: the focus goes to the Remove of the row that
  // took its place, else of the row before, else to Add reference (useFocusAfter).
  const box = useRef<HTMLElement>(null);
  const focusAfter = useFocusAfter(doc.references);
  const remove = (i: number) => {
    focusAfter(() => {
      const buttons = [...(box.current?.querySelectorAll<HTMLElement>('button[data-remove-reference]') ?? [])];
      focusFirst([buttons[i], buttons[i - 1], box.current?.querySelector<HTMLElement>('button[data-add-reference]')]);
    });
    edit((d) =>
      setKey(
        d,
        'references',
        asArr(d.references).filter((_, j) => j !== i),
      ),
    );
  };
  return (
    <section aria-label="References" ref={box}>
      <h2>References ({count(refs.length)})</h2>
      <p className="help">Kept in step with the ids block configs write. Items not in this pack need a name to match in the workspace.</p>
      {refs.map((r, i) => {
        const ref = asObj(r);
        return (
          <div key={i} className="ref" data-ref={`${str(ref.type)}:${str(ref.id)}`}>
            <div className="row">
              <SelectField
                label="Type"
                path={`document/references/${i}/type`}
                value={str(ref.type)}
                options={REFERENCE_TYPES}
                onChange={(v) => edit((d) => updateReference(d, i, { type: v }))}
              />
              <TextField
                label="Id"
                path={`document/references/${i}/id`}
                value={str(ref.id)}
                onChange={(v) => edit((d) => updateReference(d, i, { id: v }), `ref-id-${i}`)}
              />
            </div>
            <div className="row">
              <TextField
                label={`Name of ${str(ref.id)}`}
                path={`document/references/${i}/name`}
                value={str(ref.name)}
                onChange={(v) => edit((d) => updateReference(d, i, { name: v }), `ref-name-${i}`)}
              />
              <TextField
                label="Detail"
                path={`document/references/${i}/detail`}
                value={str(ref.detail)}
                onChange={(v) => edit((d) => updateReference(d, i, { detail: v }), `ref-detail-${i}`)}
              />
            </div>
            {REFERENCE_TYPES.includes(str(ref.type) as ReferenceType) && <RefMark type={str(ref.type) as ReferenceType} id={str(ref.id)} />}
            <button data-remove-reference aria-label={`Remove reference ${str(ref.id)}`} onClick={() => remove(i)}>
              Remove
            </button>
          </div>
        );
      })}
      <button
        data-add-reference
        onClick={() => edit((d) => setKey(d, 'references', [...asArr(d.references), { type: 'tag', id: 'new-id', name: '' }]))}
      >
        Add reference
      </button>
    </section>
  );
}

function ConfigInput({
  field,
  config,
  onChange,
  listed,
  onPick,
}: {
  field: ConfigField;
  config: Obj;
  onChange: (v: unknown, coalesce?: string) => void;
  listed: readonly { type: string; id: string; name: string }[];
  onPick: (p: Picked) => void;
}) {
  const value = config[field.name];
  const path = `config/${field.name}`;
  const label = field.label;
  // Said in the author's words: what the field asks for, and the note when its value is of another kind.
  const asks = { required: field.required, ask: fieldAsk(field, config) };
  const help = fieldHelp(field, config);
  if (field.type === 'boolean')
    return <CheckField label={label} {...asks} path={path} checked={value === true} onChange={(v) => onChange(v)} />;
  if (field.type === 'enum')
    return (
      <SelectField
        label={label}
        {...asks}
        path={path}
        value={typeof value === 'string' ? value : ''}
        options={field.values ?? []}
        allowEmpty
        onChange={(v) => onChange(v || undefined)}
      />
    );
  if (field.name === 'conditions' && field.type === 'object' && (value === undefined || isGroup(value) || isCondition(value)))
    // control.if conditions share the smart-list filter shape (docs/filters.md): edit them as a tree.
    return (
      <div data-path={path} tabIndex={-1}>
        <label>
          {label}
          {field.required && (
            <span className="required" title="Required">
              {' '}
              *
            </span>
          )}
        </label>
        {value === undefined ? (
          <button onClick={() => onChange(newGroup('and'))}>Add conditions</button>
        ) : (
          <FilterNode
            node={value}
            path={[]}
            root={path}
            rootIsField={false}
            onChange={(fn, c) => onChange(fn(value), c ? `cond:${c}` : undefined)}
          />
        )}
        <FieldNote path={path} />
      </div>
    );
  if (field.type === 'object' || field.type === 'any')
    return <JsonField label={label} {...asks} path={path} value={value} onChange={(v) => onChange(v, field.name)} help={help} />;
  if (field.type === 'number' || field.type === 'integer')
    return <NumberField label={label} {...asks} path={path} value={value} onChange={(v) => onChange(v, field.name)} help={help} />;
  return (
    <>
      <TextField
        label={label}
        {...asks}
        path={path}
        multiline={field.type === 'text'}
        value={fieldText(field, value)}
        help={help}
        onChange={(v) => onChange(fieldValue(field, v), field.name)}
      />
      {field.ref && (
        <>
          <RefLinks type={field.ref} ids={Array.isArray(value) ? value : [value]} />
          <RefPicker type={field.ref} label={field.label} listed={listed} onPick={onPick} />
          {(Array.isArray(value) ? value : [value]).map((v, i) =>
            typeof v === 'string' && v !== '' ? <RefMark key={`${i}:${v}`} type={field.ref!} id={v} /> : null,
          )}
        </>
      )}
    </>
  );
}

/** The pack items a ref field names, by name, each a link that opens it (as the block's summary does). */
function RefLinks({ type, ids }: { type: ReferenceType; ids: unknown[] }) {
  const ctx = useContext(ReferencesContext);
  const found = ids.flatMap((id) => {
    const item = typeof id === 'string' ? ctx?.refs.get(type)?.get(id) : undefined;
    return item ? [{ id: id as string, item }] : [];
  });
  if (!ctx || found.length === 0) return null;
  return (
    <p className="help ref-links">
      In this pack:{' '}
      {found.map(({ id, item }, i) => (
        <span key={id}>
          {i > 0 && ', '}
          <button
            type="button"
            className="link"
            onClick={() => ctx.open(item)}
            aria-label={`Open ${type.replace(/_/g, ' ')} ${item.name ?? id}`}
          >
            {item.name ?? id}
          </button>
        </span>
      ))}
    </p>
  );
}

/** A kind as the Kind select says it: its category and catalog label ("Control: Wait"); one the catalog lacks as written. */
const kindLabel = (kind: string) => {
  const info = nodeKindInfo(kind);
  return info ? `${info.group.charAt(0).toUpperCase()}${info.group.slice(1)}: ${info.label}` : kind;
};

/** A block's form; `cid` is its canvas id (graph.ts canvasIds), which every edit goes by: another block may share its id. */
function NodeForm({
  cid,
  doc,
  node,
  edit,
  notify,
  act,
  onRenamed,
}: {
  cid: string;
  doc: Obj;
  node: Obj;
  edit: Edit;
  notify: (t: string) => void;
  act: Act;
  onRenamed?: (id: string) => void;
}) {
  const id = str(node.id);
  const kind = str(node.kind);
  const info = nodeKindInfo(kind);
  const config = asObj(node.config);
  const [idDraft, setIdDraft] = useState(id);
  const setConfig = (next: Obj, coalesce?: string) =>
    edit((d) => updateNode(d, cid, (n) => setKey(n, 'config', next)), coalesce ? `${cid}:${coalesce}` : undefined);
  // A pick from a reference picker: the field writes the id (a list field adds it), and a
  // workspace object's reference is listed with the name it binds by — one undo step.
  const pick = (f: ConfigField) => (p: Picked) =>
    edit((d) => {
      const next = updateNode(d, cid, (n) => {
        const c = asObj(n.config);
        const value = f.type === 'refs' ? [...asArr(c[f.name]).filter((x) => x !== p.id), p.id] : p.id;
        return setKey(n, 'config', setConfigField(c, f.name, value));
      });
      return p.name !== undefined && f.ref ? withNamedReference(next, { type: f.ref, id: p.id, name: p.name }) : next;
    });
  const rename = () => {
    let error: string | undefined;
    edit((d) => {
      const r = renameNode(d, cid, idDraft);
      error = r.error;
      return r.doc;
    });
    if (error) notify(error);
    else onRenamed?.(idDraft);
  };
  const listed = listedReferences(doc);
  const unknown = unknownConfig(kind, config);
  const others = Object.keys(unknown).length;
  const Icon = blockIcon(kind, info?.group ?? 'unknown');
  return (
    <div>
      <h2>
        <span className={`palette-icon ${info?.group ?? 'command'}`} aria-hidden="true">
          <Icon size={16} />
        </span>
        {info?.label ?? kind}
      </h2>
      <p className="help">{info ? info.description : `Unknown kind "${kind}": pick a kind below; its config is kept as JSON.`}</p>
      {/* What the block does first: the catalog's fields (an unknown kind's whole config as JSON). */}
      <section aria-label="Config">
        {(info?.fields ?? []).map((f) => (
          <ConfigInput
            key={f.name}
            field={f}
            config={config}
            onChange={(v, c) => setConfig(setConfigField(config, f.name, v), c)}
            listed={listed}
            onPick={pick(f)}
          />
        ))}
        {!info && <UnknownConfig kind={kind} config={config} setConfig={setConfig} />}
      </section>
      <section aria-label="Block">
        {/* The schema's kinds; a kind it does not list stays shown (with its finding) until another is picked. */}
        <SelectField
          label="Kind"
          path="kind"
          value={kind}
          options={NODE_KINDS}
          optionLabel={kindLabel}
          onChange={(v) => edit((d) => updateNode(d, cid, (n) => setKey(n, 'kind', v)))}
        />
        <div className="row">
          <TextField label="Block id" path="id" value={idDraft} onChange={setIdDraft} />
          <button style={{ flex: 'none', alignSelf: 'flex-end' }} disabled={idDraft === id} onClick={rename}>
            Rename
          </button>
        </div>
        <p>
          <button data-block-action="duplicate" onClick={() => act('duplicate', [cid])} aria-label={`Duplicate block ${id}`}>
            Duplicate
          </button>{' '}
          <button data-block-action="delete" onClick={() => act('delete', [cid])} aria-label={`Delete block ${id}`}>
            Delete
          </button>
        </p>
      </section>
      {/* Config the catalog does not describe, kept as it is: out of the way unless the block has some. */}
      {info && (
        <details className="advanced" open={others > 0}>
          <summary>
            Advanced{' '}
            <span className="help">
              {others > 0 ? `${plural(others, 'field')} the catalog does not describe` : 'fields the catalog does not describe'}
            </span>
          </summary>
          <UnknownConfig kind={kind} config={config} setConfig={setConfig} />
        </details>
      )}
    </div>
  );
}

/** The config keys the catalog does not describe for `kind` (all of them for a kind it does not know), as JSON. */
function UnknownConfig({ kind, config, setConfig }: { kind: string; config: Obj; setConfig: (next: Obj, coalesce?: string) => void }) {
  const known = !!nodeKindInfo(kind);
  return (
    <JsonField
      label={known ? 'Other config fields (JSON)' : 'Config (JSON)'}
      path="config/~other"
      place="config"
      value={unknownConfig(kind, config)}
      rows={4}
      validate={(v) => (v === undefined || isObj(v) ? undefined : 'Enter the fields as a JSON object: { "name": value }')}
      onChange={(v) => setConfig(setUnknownConfig(kind, config, asObj(v)), 'raw')}
      help="Fields the catalog does not describe are kept as they are."
    />
  );
}
