// Forms for the pack's own fields and the non-graph item kinds.
import { useContext, useMemo, useRef, useState, type ChangeEvent, type ReactNode } from 'react';
import {
  ASSET_ROLES,
  MESSAGE_CHANNELS,
  PACK_FORMAT,
  RESOURCE_KINDS,
  SCHEMA_VERSIONS,
  codePoints,
  count,
  describeFilter,
  maxLengthOf,
  plural,
} from '@setup-pack/core';
import { ReferencesContext, SummaryWords } from './BlockNode.js';
import { nameParts } from './flow.js';
import { asArr, asObj, isObj, setKey, str, type Obj } from '../model/json.js';
import {
  addChild,
  formatValue,
  GROUP_TYPES,
  isCondition,
  isGroup,
  newCondition,
  newGroup,
  OPERATORS,
  parseValue,
  removeAt,
  updateAtPath,
  type FilterPath,
} from '../model/filters.js';
import {
  addStage,
  mergeTags,
  moveStage,
  previewMerge,
  removeStage,
  replaceAssetFile,
  STAGE_TYPES,
  swatchColor,
  updateStage,
} from '../model/items.js';
import { embedEmailImages, PREVIEW_CSP, PREVIEW_CSP_REMOTE_IMAGES, remoteResources, withPolicy } from '../model/preview.js';
import {
  CheckField,
  FieldNote,
  JsonField,
  NumberInput,
  SelectField,
  TextField,
  useFieldFindings,
  useFieldPointer,
  useRowKeys,
  useTypedText,
} from './fields.js';
import { focusFirst, useFocusAfter } from './focusAfter.js';

/** A stage table cell whose control shows the findings about its field (by `path`, as TextField does). */
function Cell({ path, children }: { path: string; children: (attrs: { 'data-path': string }) => ReactNode }) {
  const f = useFieldFindings(path);
  return (
    <td>
      {children({ 'data-path': path, ...f.attrs })}
      {f.note}
    </td>
  );
}

type EditItem = (fn: (item: Obj) => Obj, coalesce?: string) => void;
type SetField = (key: string, value: unknown) => void;
const BODY_MAX = maxLengthOf('message-template', 'body');
const opt = (v: string) => (v === '' ? undefined : v);
/** Sets one top-level field of the item; typing into the same field coalesces into one undo step. */
const fieldSetter =
  (edit: EditItem): SetField =>
  (k, v) =>
    edit((i) => setKey(i, k, v), k);

/** The key and name every named item kind starts with. */
function KeyAndName({ item, set }: { item: Obj; set: SetField }) {
  return (
    <div style={{ display: 'flex', gap: 8 }}>
      <TextField label="Key" path="key" value={str(item.key)} onChange={(v) => set('key', v)} />
      <TextField label="Name" path="name" value={str(item.name)} onChange={(v) => set('name', v)} />
    </div>
  );
}

/** The schema versions a pack may say, as the select offers them. */
const SCHEMA_VERSION_OPTIONS = SCHEMA_VERSIONS.map(String);
const PACK_FORMATS = [PACK_FORMAT];

/** A file that is not a pack has no schema version: show "(not set)", never the first option. */
function schemaVersionText(v: unknown): string {
  return typeof v === 'number' || typeof v === 'string' ? String(v) : '';
}

/** `intro`: what the form says first (an empty pack's next step). */
export function PackFields({ pack, edit, intro }: { pack: Obj; edit: EditItem; intro?: ReactNode }) {
  const set = fieldSetter(edit);
  return (
    <div className="editor-pane">
      <h2>Pack</h2>
      {intro}
      <TextField label="Name" path="name" value={str(pack.name)} onChange={(v) => set('name', v)} />
      {/* The schema's one format (its const); another one read from the file stays listed until changed. */}
      <SelectField
        label="Format"
        path="format"
        value={str(pack.format)}
        options={PACK_FORMATS}
        allowEmpty
        onChange={(v) => set('format', v === '' ? undefined : v)}
      />
      <div className="row" style={{ display: 'flex', gap: 8 }}>
        <TextField label="Version" path="version" value={str(pack.version)} onChange={(v) => set('version', v)} />
        <SelectField
          label="Schema version"
          path="schemaVersion"
          value={schemaVersionText(pack.schemaVersion)}
          options={SCHEMA_VERSION_OPTIONS}
          allowEmpty
          onChange={(v) => set('schemaVersion', v === '' ? undefined : Number(v))}
        />
      </div>
      <TextField
        label="Description"
        path="description"
        multiline
        value={str(pack.description)}
        onChange={(v) => set('description', opt(v))}
      />
      <TextField label="Author" path="author" value={str(pack.author)} onChange={(v) => set('author', opt(v))} />
      <TextField
        label="Pack id"
        path="packId"
        value={str(pack.packId)}
        onChange={(v) => set('packId', v)}
        help="Generated once and kept across every version."
      />
      <JsonField
        label="Brand (JSON)"
        path="brand"
        value={pack.brand}
        onChange={(v) => edit((p) => setKey(p, 'brand', v), 'brand')}
        rows={6}
      />
    </div>
  );
}

/**
 * An email body as mail clients show a message from someone else: sandboxed (no scripts, no
 * same-origin), and nothing fetched from a server until asked (a remote image is a tracking pixel),
 * the pack's own email images shown from the bytes it carries. Says what it left out, and offers
 * to load the remote images of this preview.
 */
function HtmlPreview({ html, assets, remote, onLoadRemote }: { html: string; assets: unknown; remote: boolean; onLoadRemote: () => void }) {
  const shown = useMemo(() => embedEmailImages(html, assets), [html, assets]);
  const found = useMemo(() => remoteResources(new DOMParser().parseFromString(shown, 'text/html')), [shown]);
  const images = found.images.length;
  const other = found.other.length;
  const words = !remote
    ? `${plural(images + other, 'remote resource')} blocked${images ? ` (${plural(images, 'image')})` : ''}: opening this preview contacted no server.`
    : `Remote images loaded for this preview (${plural(images, 'image')})${other ? `; ${plural(other, 'other remote resource')} (stylesheets, fonts, frames…) still blocked` : ''}.`;
  return (
    <>
      {(images > 0 || other > 0) && (
        <p className="remote-note" role="status" data-testid="remote-blocked">
          {words}
          {!remote && images > 0 && ' '}
          {!remote && images > 0 && (
            <button
              onClick={onLoadRemote}
              title="Fetch this preview's images from the servers its HTML names (they learn the preview was opened)"
            >
              Load remote images
            </button>
          )}
        </p>
      )}
      <iframe
        title="Merge-tag preview"
        aria-label="Merge-tag preview"
        sandbox=""
        srcDoc={withPolicy(shown, remote ? PREVIEW_CSP_REMOTE_IMAGES : PREVIEW_CSP)}
        className="preview-frame"
      />
    </>
  );
}

export function TemplateEditor({ item, edit, assets }: { item: Obj; edit: EditItem; assets?: unknown }) {
  const set = fieldSetter(edit);
  // The template (by key) whose preview may load remote images: asked for this one while it is
  // shown, not for the next one, nor for this one when it is shown again.
  const [remoteFor, setRemoteFor] = useState<unknown>(undefined);
  const [shownKey, setShownKey] = useState<unknown>(item.key);
  if (shownKey !== item.key) {
    setShownKey(item.key);
    setRemoteFor(undefined);
  }
  const body = str(item.body);
  const subject = str(item.subject);
  const tags = mergeTags(`${subject}\n${body}`);
  const sms = item.channel === 'sms';
  // The template (by key) whose subject field has the focus: this component is not remade for another template.
  const [focusedSubjectOf, setFocusedSubjectOf] = useState<unknown>(undefined);
  const subjectFocused = focusedSubjectOf !== undefined && focusedSubjectOf === item.key;
  return (
    <div className="editor-pane">
      <h2>Message template</h2>
      <KeyAndName item={item} set={set} />
      <div style={{ display: 'flex', gap: 8 }}>
        <SelectField
          label="Channel"
          path="channel"
          value={str(item.channel)}
          options={MESSAGE_CHANNELS}
          onChange={(v) => set('channel', v)}
        />
        <TextField label="Category" path="category" value={str(item.category)} onChange={(v) => set('category', opt(v))} />
      </div>
      {/* An SMS has no subject; one kept from another channel stays shown (with its findings) until
          cleared, and once cleared until the focus leaves it: the field is not pulled from under the
          caret (focus would fall to the page), and typing again brings the subject back. */}
      {(!sms || item.subject !== undefined || subjectFocused) && (
        <div onFocus={() => setFocusedSubjectOf(item.key)} onBlur={() => setFocusedSubjectOf(undefined)}>
          <TextField
            label="Subject"
            path="subject"
            value={subject}
            onChange={(v) => set('subject', opt(v))}
            help={
              sms ? (
                <span role="status">
                  {item.subject === undefined
                    ? 'Cleared: SMS messages have no subject, so it is left out of the pack; this field leaves the form when you move on.'
                    : 'SMS messages have no subject: clear this to leave it out of the pack.'}
                </span>
              ) : undefined
            }
          />
        </div>
      )}
      <TextField
        label="Body"
        path="body"
        multiline
        rows={8}
        value={body}
        onChange={(v) => set('body', v)}
        help={`${count(codePoints(body))} / ${plural(BODY_MAX, 'character')}`}
      />
      <h3>Preview</h3>
      <p className="help">Merge tags: {tags.length ? tags.map((t) => `{{${t}}}`).join(', ') : 'none'} (shown with sample values)</p>
      {item.channel !== 'sms' && subject && (
        <div className="preview">
          <strong>Subject: {previewMerge(subject)}</strong>
        </div>
      )}
      {item.channel === 'sms' ? (
        <div className="preview" aria-label="Merge-tag preview">
          {previewMerge(body)}
        </div>
      ) : (
        <HtmlPreview
          html={previewMerge(body)}
          assets={assets}
          remote={remoteFor !== undefined && remoteFor === item.key}
          onLoadRemote={() => setRemoteFor(item.key)}
        />
      )}
      {'richTextDoc' in item && (
        <JsonField
          label="Rich text document (JSON)"
          path="richTextDoc"
          value={item.richTextDoc}
          onChange={(v) => set('richTextDoc', v === undefined ? null : v)}
          rows={6}
        />
      )}
    </div>
  );
}

/**
 * A condition's value box: its text read by parseValue, and not applied, with why, when it says
 * what the editor would not keep; `place` is the value's path in the form (its pointer names it,
 * and the findings about the value are shown beside it, as a clicked one focuses it).
 */
function ConditionValue({
  label,
  value,
  place,
  onChange,
}: {
  label: string;
  value: unknown;
  place: string;
  onChange: (v: unknown) => void;
}) {
  const pointer = useFieldPointer(place);
  const t = useTypedText(formatValue(value), value, (text) => parseValue(text, pointer), onChange);
  const f = useFieldFindings(place, t.error);
  return (
    <span className="condition-value">
      <input aria-label={label} data-path={place} value={t.draft} onChange={(e) => t.change(e.target.value)} {...f.attrs} />
      {f.note}
    </span>
  );
}

/** A condition's field box, a field of the form at `place` (its findings beside it; a clicked one focuses it). */
function ConditionField({ label, value, place, onChange }: { label: string; value: string; place: string; onChange: (v: string) => void }) {
  const f = useFieldFindings(place);
  return (
    <span className="condition-field">
      <input aria-label={label} data-path={place} value={value} onChange={(e) => onChange(e.target.value)} {...f.attrs} />
      {f.note}
    </span>
  );
}

/** A condition's operator: the editor's operators, and one the pack writes that is not among them, kept as written. */
function ConditionOperator({
  label,
  value,
  place,
  onChange,
}: {
  label: string;
  value: string;
  place: string;
  onChange: (v: string) => void;
}) {
  const f = useFieldFindings(place);
  return (
    <span className="condition-operator">
      <select aria-label={label} data-path={place} value={value} onChange={(e) => onChange(e.target.value)} {...f.attrs}>
        {OPERATORS.includes(value) ? null : <option value={value}>{value}</option>}
        {OPERATORS.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
      {f.note}
    </span>
  );
}

const NO_CHILDREN: readonly unknown[] = [];

/**
 * A filter node's row (a condition) or box (a group, its children below it). `root` is the
 * tree's root in the form's paths ("filters/root", "config/conditions"); the rows of a group are
 * keyed by their node (useRowKeys), so text typed into a condition and not applied stays with it.
 * Each node is a field of the form at its place (`data-path`): the findings about a condition or a
 * group are shown on its own row or box, and those about a value beside its box. `rootIsField`:
 * false when the form already shows the root's place as a field around the tree (control.if's
 * "config/conditions"), so its findings are not shown twice.
 */
export function FilterNode({
  node,
  path,
  root,
  rootIsField = true,
  onChange,
  onRemove,
}: {
  node: unknown;
  path: FilterPath;
  root: string;
  rootIsField?: boolean;
  onChange: (fn: (root: unknown) => unknown, coalesce?: string) => void;
  onRemove?: () => void;
}) {
  const n = asObj(node);
  const at = path.join('.') || 'root';
  const place = [root, ...path.map((i) => `children/${i}`)].join('/');
  const field = path.length > 0 || rootIsField ? { 'data-path': place, tabIndex: -1 } : {};
  const children = isGroup(node) ? asArr(n.children) : NO_CHILDREN;
  const keys = useRowKeys(children);
  // A child removed (its × or Remove, from the keyboard too) takes its button with it: the focus
  // goes to the remove button of the row that took its place, else of the row before, else to
  // this group's + Condition (useFocusAfter).
  const box = useRef<HTMLDivElement>(null);
  const focusAfter = useFocusAfter(n.children);
  const removeButton = (j: number) => {
    const child = [...path, j].join('.');
    return box.current?.querySelector<HTMLElement>(
      `button[aria-label="Remove condition ${child}"], button[aria-label="Remove group ${child}"]`,
    );
  };
  if (isGroup(node)) {
    return (
      <div className="filter-group" role="group" aria-label={`Filter group ${at}`} ref={box} {...field}>
        <div className="filter-row">
          <select
            aria-label={`Group type ${at}`}
            value={str(n.type)}
            onChange={(e) => onChange((r) => updateAtPath(r, path, (g) => setKey(g, 'type', e.target.value)))}
            style={{ width: 90, flex: 'none' }}
          >
            {GROUP_TYPES.map((t) => (
              <option key={t} value={t}>
                {t.toUpperCase()}
              </option>
            ))}
          </select>
          <button data-add-condition onClick={() => onChange((r) => addChild(r, path, newCondition()))}>
            + Condition
          </button>
          <button onClick={() => onChange((r) => addChild(r, path, newGroup('or')))}>+ Group</button>
          {path.length > 0 && (
            <button aria-label={`Remove group ${at}`} onClick={() => (onRemove?.(), onChange((r) => removeAt(r, path)))}>
              Remove
            </button>
          )}
        </div>
        {'data-path' in field && <FieldNote path={place} />}
        {children.map((c, i) => (
          <FilterNode
            key={keys[i]}
            node={c}
            path={[...path, i]}
            root={root}
            onChange={onChange}
            onRemove={() =>
              focusAfter(() =>
                focusFirst([
                  removeButton(i),
                  i > 0 ? removeButton(i - 1) : null,
                  box.current?.querySelector<HTMLElement>('button[data-add-condition]'),
                ]),
              )
            }
          />
        ))}
      </div>
    );
  }
  if (isCondition(node)) {
    const upd = (k: string, v: unknown) => onChange((r) => updateAtPath(r, path, (c) => setKey(c, k, v)), `${at}:${k}`);
    return (
      <div className="filter-condition" role="group" aria-label={`Condition ${at}`} {...field}>
        <div className="filter-row">
          <ConditionField label={`Field ${at}`} value={str(n.field)} place={`${place}/field`} onChange={(v) => upd('field', v)} />
          <ConditionOperator
            label={`Operator ${at}`}
            value={str(n.operator)}
            place={`${place}/operator`}
            onChange={(v) => upd('operator', v)}
          />
          <ConditionValue label={`Value ${at}`} value={n.value} place={`${place}/value`} onChange={(v) => upd('value', v)} />
          {path.length === 0 ? (
            <button aria-label="Wrap in a group" title="Wrap in a group" onClick={() => onChange((r) => ({ type: 'and', children: [r] }))}>
              ( )
            </button>
          ) : (
            <button aria-label={`Remove condition ${at}`} onClick={() => (onRemove?.(), onChange((r) => removeAt(r, path)))}>
              ×
            </button>
          )}
        </div>
        {'data-path' in field && <FieldNote path={place} />}
      </div>
    );
  }
  return (
    <JsonField
      label={`Filter node ${at} (JSON)`}
      path={'data-path' in field ? place : undefined}
      place={place}
      value={node}
      onChange={(v) => onChange((r) => updateAtPath(r, path, () => asObj(v)))}
    />
  );
}

export function SmartListEditor({ item, edit }: { item: Obj; edit: EditItem }) {
  const set = fieldSetter(edit);
  const filters = asObj(item.filters);
  const onTree = (fn: (root: unknown) => unknown, coalesce?: string) =>
    edit(
      (i) => setKey(i, 'filters', setKey(asObj(i.filters), 'root', fn(asObj(i.filters).root))),
      coalesce ? `filter:${coalesce}` : undefined,
    );
  const refs = useContext(ReferencesContext)?.refs;
  return (
    <div className="editor-pane">
      <h2>Smart list</h2>
      <KeyAndName item={item} set={set} />
      <TextField label="Description" path="description" value={str(item.description)} onChange={(v) => set('description', opt(v))} />
      <div style={{ display: 'flex', gap: 8 }}>
        <TextField label="Color" path="color" value={str(item.color)} placeholder="#3b82f6" onChange={(v) => set('color', opt(v))} />
        <TextField label="Icon" path="icon" value={str(item.icon)} onChange={(v) => set('icon', opt(v))} />
      </div>
      <h3>Filters</h3>
      {isObj(filters.root) && (
        // The filter in words (core's describeFilter, as a control.if block says its conditions).
        <p className="filter-words" data-testid="filter-words">
          Matches when <SummaryWords items={nameParts(describeFilter(filters.root), refs)} tabbable />
        </p>
      )}
      <div data-path="filters" tabIndex={-1}>
        {isObj(filters.root) ? (
          <FilterNode node={filters.root} path={[]} root="filters/root" onChange={onTree} />
        ) : (
          <button onClick={() => edit((i) => setKey(i, 'filters', { version: 2, ...asObj(i.filters), root: newGroup('and') }))}>
            Start a filter
          </button>
        )}
        <FieldNote path="filters" />
      </div>
    </div>
  );
}

/** The schema property a stage's probability is (its type: an integer). */
const PROBABILITY = { schema: 'stage', property: 'probability' };

export function PipelineEditor({ item, edit }: { item: Obj; edit: EditItem }) {
  const set = fieldSetter(edit);
  const listed = asArr(item.stages);
  const stages = listed.map(asObj);
  // Rows keyed by their stage, not their index: a probability typed and not applied stays with its stage.
  const keys = useRowKeys(listed);
  const upd = (i: number, k: string, v: unknown) => edit((p) => updateStage(p, i, { [k]: v }), `stage-${i}-${k}`);
  // A move or a removal re-renders the rows: the button pressed moves with its row or goes. The
  // focus goes to the first enabled button `focusNext` names (by aria-label, in the rows as they
  // are after the edit): the moved stage's, or the row's that took the removed one's place (Add
  // stage when none is left), so the keyboard goes on where it was (useFocusAfter).
  const pane = useRef<HTMLDivElement>(null);
  const focusAfter = useFocusAfter(item.stages);
  const focusNext = (labels: readonly string[]) =>
    focusAfter(() =>
      focusFirst(
        labels.map((l) => pane.current?.querySelector<HTMLElement>(l === ADD_STAGE ? 'button[data-focus]' : `button[aria-label="${l}"]`)),
      ),
    );
  const move = (i: number, to: number) => {
    const dir = to > i ? 'down' : 'up';
    focusNext([`Move stage ${to + 1} ${dir}`, `Move stage ${to + 1} ${dir === 'down' ? 'up' : 'down'}`]);
    edit((p) => moveStage(p, i, to));
  };
  const remove = (i: number) => {
    focusNext([`Remove stage ${i + 1}`, `Remove stage ${i}`, ADD_STAGE]);
    edit((p) => removeStage(p, i));
  };
  return (
    <div className="editor-pane" ref={pane}>
      <h2>Pipeline</h2>
      <KeyAndName item={item} set={set} />
      <TextField label="Description" path="description" value={str(item.description)} onChange={(v) => set('description', opt(v))} />
      <h3>Stages</h3>
      {/* The stage list as a whole (too few stages, a missing won or lost stage): its note is by
          Add stage, the control that fixes it, which a click on such a finding focuses (data-focus). */}
      <div data-path="stages">
        <table className="stages">
          <thead>
            <tr>
              <th>Key</th>
              <th>Name</th>
              <th>Type</th>
              <th>Probability</th>
              <th>Color</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {stages.map((s, i) => (
              <tr key={keys[i]} data-path={`stages/${i}`}>
                <Cell path={`stages/${i}/key`}>
                  {(a) => (
                    <input aria-label={`Stage ${i + 1} key`} value={str(s.key)} onChange={(e) => upd(i, 'key', e.target.value)} {...a} />
                  )}
                </Cell>
                <Cell path={`stages/${i}/name`}>
                  {(a) => (
                    <input aria-label={`Stage ${i + 1} name`} value={str(s.name)} onChange={(e) => upd(i, 'name', e.target.value)} {...a} />
                  )}
                </Cell>
                <Cell path={`stages/${i}/stageType`}>
                  {(a) => (
                    <select
                      aria-label={`Stage ${i + 1} type`}
                      value={str(s.stageType, 'OPEN')}
                      onChange={(e) => upd(i, 'stageType', e.target.value)}
                      {...a}
                    >
                      {STAGE_TYPES.map((t) => (
                        <option key={t}>{t}</option>
                      ))}
                    </select>
                  )}
                </Cell>
                <td>
                  <NumberInput
                    aria-label={`Stage ${i + 1} probability`}
                    path={`stages/${i}/probability`}
                    rule={PROBABILITY}
                    value={s.probability}
                    onChange={(v) => upd(i, 'probability', v)}
                  />
                </td>
                <Cell path={`stages/${i}/color`}>
                  {(a) => (
                    <input
                      aria-label={`Stage ${i + 1} color`}
                      type="color"
                      value={swatchColor(s.color)}
                      onChange={(e) => upd(i, 'color', e.target.value)}
                      {...a}
                    />
                  )}
                </Cell>
                <td style={{ whiteSpace: 'nowrap' }}>
                  <button aria-label={`Move stage ${i + 1} up`} disabled={i === 0} onClick={() => move(i, i - 1)}>
                    ↑
                  </button>
                  <button aria-label={`Move stage ${i + 1} down`} disabled={i === stages.length - 1} onClick={() => move(i, i + 1)}>
                    ↓
                  </button>
                  <button aria-label={`Remove stage ${i + 1}`} onClick={() => remove(i)}>
                    ×
                  </button>
                  <FieldNote path={`stages/${i}`} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <AddStage onClick={() => edit(addStage)} />
      </div>
    </div>
  );
}

const ADD_STAGE = 'Add stage';

/** Add stage, described by the findings about the stage list as a whole (shown under it). */
function AddStage({ onClick }: { onClick: () => void }) {
  const f = useFieldFindings('stages');
  const describedBy = (f.attrs as { 'aria-describedby'?: string })['aria-describedby'];
  return (
    <>
      {f.note}
      <button data-focus aria-describedby={describedBy} onClick={onClick}>
        {ADD_STAGE}
      </button>
    </>
  );
}

export function ResourceEditor({ item, edit }: { item: Obj; edit: EditItem }) {
  const set = fieldSetter(edit);
  return (
    <div className="editor-pane">
      <h2>Resource</h2>
      <div style={{ display: 'flex', gap: 8 }}>
        <TextField label="Key" path="key" value={str(item.key)} onChange={(v) => set('key', v)} />
        <SelectField label="Kind" path="kind" value={str(item.kind)} options={RESOURCE_KINDS} onChange={(v) => set('kind', v)} />
      </div>
      <TextField label="Name" path="name" value={str(item.name)} onChange={(v) => set('name', v)} />
      <JsonField
        label="Data (JSON)"
        path="data"
        value={item.data}
        onChange={(v) => set('data', v)}
        validate={(v) => (v === undefined || isObj(v) ? undefined : 'Enter a JSON object')}
      />
    </div>
  );
}

export function AssetEditor({ item, edit, notify }: { item: Obj; edit: EditItem; notify: (t: string) => void }) {
  const set = fieldSetter(edit);
  const data = str(item.data);
  const mime = str(item.mimeType);
  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    if (!file) return;
    const bytes = new Uint8Array(await file.arrayBuffer());
    edit((a) => replaceAssetFile(a, bytes, file.name, file.type || undefined));
    notify(`Replaced with ${file.name} (${plural(bytes.length, 'byte')})`);
    e.target.value = '';
  };
  return (
    <div className="editor-pane">
      <h2>Asset</h2>
      {data && mime.startsWith('image/') && (
        <img alt={`Preview of ${str(item.fileName)}`} src={`data:${mime};base64,${data}`} className="asset-preview" />
      )}
      {!data && typeof item.url === 'string' && (
        <p className="help">
          Stored at <a href={item.url}>{item.url}</a>
        </p>
      )}
      <div>
        <label htmlFor="asset-file">Replace file</label>
        <input id="asset-file" type="file" aria-label="Replace asset file" onChange={(e) => void onFile(e)} />
      </div>
      <div style={{ display: 'flex', gap: 8 }}>
        <TextField label="Key" path="key" value={str(item.key)} onChange={(v) => set('key', v)} />
        <SelectField label="Role" path="role" value={str(item.role)} options={ASSET_ROLES} onChange={(v) => set('role', v)} />
      </div>
      <TextField label="File name" path="fileName" value={str(item.fileName)} onChange={(v) => set('fileName', v)} />
      <TextField label="MIME type" path="mimeType" value={mime} onChange={(v) => set('mimeType', v)} />
      {/* Read from the data (Replace file, or Fix in the findings panel), never typed: shown as
          read-only fields, so a finding about either has a control to show on and to focus. */}
      <div style={{ display: 'flex', gap: 8 }} aria-label="File facts" role="group">
        <div style={{ flex: '0 0 9em' }}>
          <TextField
            label="Byte size"
            path="byteSize"
            readOnly
            value={item.byteSize === undefined ? '' : String(item.byteSize)}
            onChange={() => undefined}
          />
        </div>
        <div style={{ flex: 1 }}>
          <TextField label="SHA-256" path="sha256" readOnly value={str(item.sha256)} onChange={() => undefined} />
        </div>
      </div>
      <p className="help">Byte size and SHA-256 are set from the data by Replace file; Fix (in the findings panel) recomputes them.</p>
      {item.role === 'email_image' && (
        <TextField label="Source URL" path="sourceUrl" value={str(item.sourceUrl)} onChange={(v) => set('sourceUrl', opt(v) ?? null)} />
      )}
      <CheckField
        label="Public URL set"
        checked={typeof item.url === 'string'}
        onChange={(on) => set('url', on ? 'https://' : undefined)}
      />
      {typeof item.url === 'string' && <TextField label="URL" path="url" value={item.url} onChange={(v) => set('url', v)} />}
    </div>
  );
}
