// Small labelled inputs shared by the forms. `path` (e.g. "config/tag_id") lets a clicked
// diagnostic focus the field it points at.
import { useEffect, useId, useState, type ReactNode } from 'react';

export function TextField(props: { label: string; value: string; onChange: (v: string) => void; path?: string; multiline?: boolean; rows?: number; placeholder?: string; type?: string; help?: ReactNode; error?: string }) {
  const id = useId();
  return (
    <div>
      <label htmlFor={id}>{props.label}</label>
      {props.multiline ? (
        <textarea id={id} data-path={props.path} rows={props.rows ?? 3} value={props.value} placeholder={props.placeholder} onChange={(e) => props.onChange(e.target.value)} />
      ) : (
        <input id={id} data-path={props.path} type={props.type ?? 'text'} value={props.value} placeholder={props.placeholder} onChange={(e) => props.onChange(e.target.value)} />
      )}
      {props.help && <div className="help">{props.help}</div>}
      {props.error && <div className="field-error">{props.error}</div>}
    </div>
  );
}

export function SelectField(props: { label: string; value: string; options: readonly string[]; onChange: (v: string) => void; path?: string; allowEmpty?: boolean }) {
  const id = useId();
  const opts = props.options.includes(props.value) || props.value === '' ? props.options : [props.value, ...props.options];
  return (
    <div>
      <label htmlFor={id}>{props.label}</label>
      <select id={id} data-path={props.path} value={props.value} onChange={(e) => props.onChange(e.target.value)}>
        {props.allowEmpty && <option value="">(not set)</option>}
        {opts.map((o) => (
          <option key={o} value={o}>{o}</option>
        ))}
      </select>
    </div>
  );
}

export function CheckField(props: { label: string; checked: boolean; onChange: (v: boolean) => void; path?: string }) {
  const id = useId();
  return (
    <div className="row" style={{ justifyContent: 'flex-start', marginTop: 6 }}>
      <input id={id} data-path={props.path} type="checkbox" style={{ width: 'auto', flex: 'none' }} checked={props.checked} onChange={(e) => props.onChange(e.target.checked)} />
      <label htmlFor={id} style={{ margin: 0 }}>{props.label}</label>
    </div>
  );
}

/** A raw JSON editor that applies only valid JSON, and shows the parse error otherwise. */
export function JsonField(props: { label: string; value: unknown; onChange: (v: unknown) => void; path?: string; help?: ReactNode; validate?: (v: unknown) => string | undefined; rows?: number }) {
  const text = props.value === undefined ? '' : JSON.stringify(props.value, null, 2);
  const [draft, setDraft] = useState(text);
  const [error, setError] = useState<string>();
  useEffect(() => {
    // Follow outside changes (undo, other fields) unless the draft already means the same value.
    setDraft((d) => {
      try {
        if (JSON.stringify(JSON.parse(d || 'null')) === JSON.stringify(props.value ?? null)) return d;
      } catch {
        /* replace the broken draft */
      }
      return text;
    });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [text]);
  const onChange = (v: string) => {
    setDraft(v);
    try {
      const parsed = v.trim() === '' ? undefined : (JSON.parse(v) as unknown);
      const msg = props.validate?.(parsed);
      setError(msg);
      if (!msg) props.onChange(parsed);
    } catch (e) {
      setError(e instanceof Error ? e.message : 'Not valid JSON');
    }
  };
  return <TextField label={props.label} value={draft} onChange={onChange} multiline rows={props.rows ?? 4} path={props.path} help={props.help} error={error} />;
}
