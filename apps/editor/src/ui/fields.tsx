// Small labelled inputs shared by the forms. `path` (e.g. "config/tag_id") lets a clicked
// diagnostic focus the field it points at, and the field show the findings about it.
import { createContext, useContext, useEffect, useId, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { parsePointer, printable, toPointer, type Diagnostic } from '@setup-pack/core';
import { fieldOf } from '../model/findings.js';
import { jsonTextNotKept, numberTextRead, type SchemaProperty, type TextRead } from '../model/fileText.js';
import { followKeys } from '../model/rowKeys.js';

/** Findings by the `data-path` of the field they belong to, for the form being shown. */
const FieldFindingsContext = createContext<ReadonlyMap<string, readonly Diagnostic[]>>(new Map());

const sameAssignment = (a: ReadonlyMap<string, readonly Diagnostic[]>, b: ReadonlyMap<string, readonly Diagnostic[]>) =>
  a.size === b.size &&
  [...b].every(([k, v]) => {
    const w = a.get(k);
    return !!w && w.length === v.length && v.every((d, i) => d === w[i]);
  });

/** The pointer of the object the form's field paths start from (FieldFindings' `at`). */
const FieldPlaceContext = createContext('');

/**
 * The pointer of the field at `path` (a `data-path`, e.g. "config/duration") in the pack: the
 * form's place (`at` of FieldFindings) and the path. What a field's own note names it by, as the
 * diagnostics panel names a finding there (core's describePointer of the pointer).
 */
export function useFieldPointer(path: string | undefined): string {
  const at = useContext(FieldPlaceContext);
  return path ? toPointer([...parsePointer(at), ...path.split('/')]) : at;
}

/** The key under which FieldFindings keeps the findings no field of the form is about. */
const WHOLE_FORM = '\0form';

/**
 * Gives each finding to the field it belongs to (model/findings' fieldOf over the fields this
 * form renders, as a clicked finding is focused), so the field shows it beside itself. A finding
 * about the item or block as a whole, or about a part no field shows (an automation's number of
 * blocks, a block no trigger reaches), is listed at the top of the form instead of on no field.
 */
export function FieldFindings({
  findings,
  at = '',
  children,
}: {
  findings: readonly { path: string[]; diagnostic: Diagnostic }[];
  at?: string;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const [byField, setByField] = useState<ReadonlyMap<string, readonly Diagnostic[]>>(() => new Map());
  // After every render: the fields shown can change with the pack (a settings block switched on),
  // which no dependency list names; setByField keeps the map when nothing moved, so it settles.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  useLayoutEffect(() => {
    const fields = [...(ref.current?.querySelectorAll<HTMLElement>('[data-path]') ?? [])].map((e) => e.dataset.path ?? '');
    const next = new Map<string, Diagnostic[]>();
    for (const f of findings) {
      const field = fieldOf(f.path, fields) ?? WHOLE_FORM;
      next.set(field, [...(next.get(field) ?? []), f.diagnostic]);
    }
    setByField((prev) => (sameAssignment(prev, next) ? prev : next));
  });
  const whole = byField.get(WHOLE_FORM);
  return (
    <div ref={ref} className="field-findings">
      {whole && <FindingNotes messages={notesOf(whole)} className="form-findings" label="Findings about this form" />}
      <FieldPlaceContext.Provider value={at}>
        <FieldFindingsContext.Provider value={byField}>{children}</FieldFindingsContext.Provider>
      </FieldPlaceContext.Provider>
    </div>
  );
}

interface Note {
  severity: Diagnostic['severity'];
  text: string;
  code: string;
}

/**
 * Findings as notes: the message through printable (it quotes the pack's own text). A block
 * field's value of another kind than the catalog's (core's catalog/config-field, not about a
 * missing field) is said as the field asks for it (`ask`: "Enter a whole number of days").
 */
const notesOf = (found: readonly Diagnostic[], ask?: string): Note[] =>
  found.map((d) => ({
    severity: d.severity,
    text: ask && d.code === 'catalog/config-field' && d.missing === undefined ? `${ask}.` : printable(d.message),
    code: d.code,
  }));

/** A list of notes as a field, or the whole form, shows them. */
function FindingNotes({ messages, id, className, label }: { messages: readonly Note[]; id?: string; className?: string; label?: string }) {
  return (
    <ul className={className ? `field-findings-list ${className}` : 'field-findings-list'} id={id} aria-label={label}>
      {messages.map((m, i) => (
        <li key={i} className={`field-error ${m.severity}`}>
          <span className="sr-only">{m.severity}: </span>
          {m.text}
          {m.code && <code className="code"> {m.code}</code>}
        </li>
      ))}
    </ul>
  );
}

/** The findings about the field at `path`: the attributes its control carries and the note shown under it. */
export function useFieldFindings(path: string | undefined, own?: string, ask?: string) {
  const id = useId();
  const found = useContext(FieldFindingsContext).get(path ?? '\0') ?? [];
  const messages = [...notesOf(found, ask), ...(own ? [{ severity: 'error' as const, text: own, code: '' }] : [])];
  if (messages.length === 0) return { attrs: {}, note: null };
  const noteId = `${id}-findings`;
  return {
    attrs: { 'aria-invalid': messages.some((m) => m.severity === 'error') || undefined, 'aria-describedby': noteId },
    note: <FindingNotes messages={messages} id={noteId} />,
  };
}

/** The findings about a group of controls (a table row, a set of checkboxes) shown under it. */
export function FieldNote({ path }: { path: string }) {
  return useFieldFindings(path).note;
}

/** A field's label; a required field's ends in a marked asterisk (part of its name, as "Tag *"). */
function FieldLabel({ htmlFor, label, required }: { htmlFor: string; label: string; required?: boolean }) {
  return (
    <label htmlFor={htmlFor}>
      {label}
      {required && (
        <span className="required" title="Required">
          {' '}
          *
        </span>
      )}
    </label>
  );
}

/** What every labelled field takes beside its own props: whether it is required, and what it asks for in words (the note for a value of another kind). */
interface Asks {
  required?: boolean;
  ask?: string;
}

export function TextField(
  props: Asks & {
    label: string;
    value: string;
    onChange: (v: string) => void;
    path?: string;
    multiline?: boolean;
    rows?: number;
    placeholder?: string;
    type?: string;
    help?: ReactNode;
    error?: string;
    readOnly?: boolean;
  },
) {
  const id = useId();
  const f = useFieldFindings(props.path, props.error, props.ask);
  const required = props.required || undefined;
  return (
    <div>
      <FieldLabel htmlFor={id} label={props.label} required={props.required} />
      {props.multiline ? (
        <textarea
          id={id}
          data-path={props.path}
          rows={props.rows ?? 3}
          value={props.value}
          placeholder={props.placeholder}
          aria-required={required}
          onChange={(e) => props.onChange(e.target.value)}
          {...f.attrs}
        />
      ) : (
        <input
          id={id}
          data-path={props.path}
          type={props.type ?? 'text'}
          value={props.value}
          placeholder={props.placeholder}
          readOnly={props.readOnly}
          aria-required={required}
          onChange={(e) => props.onChange(e.target.value)}
          {...f.attrs}
        />
      )}
      {f.note}
      {props.help && <div className="help">{props.help}</div>}
    </div>
  );
}

/** A select of `options`; `optionLabel` says each in words (the value stays what is written). */
export function SelectField(
  props: Asks & {
    label: string;
    value: string;
    options: readonly string[];
    onChange: (v: string) => void;
    path?: string;
    allowEmpty?: boolean;
    optionLabel?: (value: string) => string;
  },
) {
  const id = useId();
  const f = useFieldFindings(props.path, undefined, props.ask);
  const opts = props.options.includes(props.value) || props.value === '' ? props.options : [props.value, ...props.options];
  return (
    <div>
      <FieldLabel htmlFor={id} label={props.label} required={props.required} />
      <select
        id={id}
        data-path={props.path}
        value={props.value}
        aria-required={props.required || undefined}
        onChange={(e) => props.onChange(e.target.value)}
        {...f.attrs}
      >
        {props.allowEmpty && <option value="">(not set)</option>}
        {opts.map((o) => (
          <option key={o} value={o}>
            {props.optionLabel?.(o) ?? o}
          </option>
        ))}
      </select>
      {f.note}
    </div>
  );
}

export function CheckField(props: Asks & { label: string; checked: boolean; onChange: (v: boolean) => void; path?: string }) {
  const id = useId();
  const f = useFieldFindings(props.path, undefined, props.ask);
  return (
    <>
      <div className="row check-row">
        <input
          id={id}
          data-path={props.path}
          type="checkbox"
          checked={props.checked}
          onChange={(e) => props.onChange(e.target.checked)}
          {...f.attrs}
        />
        <FieldLabel htmlFor={id} label={props.label} required={props.required} />
      </div>
      {f.note}
    </>
  );
}

let lastRowKey = 0;

/**
 * React keys for the rows of `list` (items the pack holds: a filter group's children, a
 * pipeline's stages) that follow each item from render to render (model/rowKeys' followKeys), not
 * its index: a row's own state — text typed and not applied — stays with its item when an item
 * before it is removed or it is moved, and is never shown on the item that took its place.
 */
export function useRowKeys(list: readonly unknown[]): readonly number[] {
  const rows = useRef<{ list: readonly unknown[]; keys: readonly number[] }>(undefined);
  if (rows.current?.list !== list) {
    const before = rows.current;
    rows.current = { list, keys: followKeys(before?.list ?? [], before?.keys ?? [], list, () => ++lastRowKey) };
  }
  return rows.current.keys;
}

/** Whether two values are the same JSON (the value a draft reads as, and the pack's). */
const sameJson = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * A field's own text, kept as typed (`draft`): each change is read by `read`, and the value it
 * reads as is set; text that is not applied stays in the field, with why (`error`), and the pack
 * is left as it was. The text follows changes made elsewhere (undo, another item shown; `shown`,
 * the value as text) unless it already reads as the value. One rule for every typed field: what a
 * user types is set as typed, or not at all, never changed without a word.
 */
export function useTypedText(shown: string, value: unknown, read: (text: string) => TextRead, onChange: (v: unknown) => void) {
  const [draft, setDraft] = useState(shown);
  const [error, setError] = useState<string>();
  useEffect(() => {
    if (draft === shown) return;
    const r = read(draft);
    if ('value' in r && sameJson(r.value, value)) return;
    setDraft(shown);
    setError(undefined);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [shown]);
  const change = (text: string) => {
    setDraft(text);
    const r = read(text);
    setError('error' in r ? r.error : undefined);
    if ('value' in r) onChange(r.value);
  };
  return { draft, error, change };
}

/** A number as a number field shows it: as JSON writes it, or the pack's own text when it is not a number. */
const numberShown = (v: unknown) => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/**
 * A number field: what is typed is read by core's rule (numberTextRead), so a number the editor
 * would not keep as written (`1e-400` reads as 0), or one of a type its schema property (`rule`)
 * does not allow (12.5 for an integer), is not applied, and the field says why. A text
 * input, not type="number": the browser gives a number input's text as "" when it cannot hold
 * it (1e400), which would remove the field instead of saying so.
 */
export function NumberField(
  props: Asks & {
    label: string;
    value: unknown;
    onChange: (v: number | undefined) => void;
    path?: string;
    rule?: SchemaProperty;
    help?: ReactNode;
  },
) {
  const pointer = useFieldPointer(props.path);
  // Text that is no number at all is refused in the field's own words when it has them.
  const notANumber = props.ask && `Not applied: ${props.ask.charAt(0).toLowerCase()}${props.ask.slice(1)}.`;
  const t = useTypedText(
    numberShown(props.value),
    props.value,
    (text) => numberTextRead(text, pointer, props.rule, notANumber),
    (v) => props.onChange(v as number | undefined),
  );
  return (
    <TextField
      label={props.label}
      required={props.required}
      ask={props.ask}
      path={props.path}
      value={t.draft}
      onChange={t.change}
      help={props.help}
      error={t.error}
    />
  );
}

/** NumberField's input without its label (a table cell's, named by `aria-label`), with the findings about `path` and its own note. */
export function NumberInput(props: {
  'aria-label': string;
  value: unknown;
  onChange: (v: number | undefined) => void;
  path: string;
  rule?: SchemaProperty;
}) {
  const pointer = useFieldPointer(props.path);
  const t = useTypedText(
    numberShown(props.value),
    props.value,
    (text) => numberTextRead(text, pointer, props.rule),
    (v) => props.onChange(v as number | undefined),
  );
  const f = useFieldFindings(props.path, t.error);
  return (
    <>
      <input
        aria-label={props['aria-label']}
        data-path={props.path}
        value={t.draft}
        onChange={(e) => t.change(e.target.value)}
        {...f.attrs}
      />
      {f.note}
    </>
  );
}

/**
 * A raw JSON editor that applies only valid JSON, and shows the parse error otherwise; JSON that
 * says what the editor would not keep as written (`1e-400`, which reads as 0, a property written
 * twice) is not applied either, and the note says why in core's words (jsonTextNotKept).
 */
export function JsonField(
  props: Asks & {
    label: string;
    value: unknown;
    onChange: (v: unknown) => void;
    path?: string;
    place?: string;
    help?: ReactNode;
    validate?: (v: unknown) => string | undefined;
    rows?: number;
  },
) {
  const text = props.value === undefined ? '' : JSON.stringify(props.value, null, 2);
  // Where the JSON's root is in the pack (`place`, when it is not `path`: the block config keys the catalog does not know sit in config itself).
  const pointer = useFieldPointer(props.place ?? props.path);
  const read = (v: string): TextRead => {
    try {
      const parsed = v.trim() === '' ? undefined : (JSON.parse(v) as unknown);
      const msg = (parsed !== undefined ? jsonTextNotKept(v, pointer) : undefined) ?? props.validate?.(parsed);
      return msg ? { error: msg } : { value: parsed };
    } catch (e) {
      return { error: e instanceof Error ? e.message : 'Not valid JSON' };
    }
  };
  const t = useTypedText(text, props.value, read, props.onChange);
  return (
    <TextField
      label={props.label}
      required={props.required}
      ask={props.ask}
      value={t.draft}
      onChange={t.change}
      multiline
      rows={props.rows ?? 4}
      path={props.path}
      help={props.help}
      error={t.error}
    />
  );
}
