// The compare form: an old and a new release chosen, in any order (the pack being edited can be
// the new one), then Compare; a release the address named that could not be opened says why under
// its chooser.
import { packFileText, parsePackText } from '../model/fileText.js';
import type { PackValue } from '../model/pack.js';
import type { Release } from './DiffView.js';

export interface CompareState {
  old?: Release;
  new?: Release;
  open: boolean;
  shown?: boolean;
  /** Why a release the address named (?old=, ?new=) could not be opened, said under its chooser. */
  problems?: { old?: string; new?: string };
}

export function CompareForm({
  diff,
  setDiff,
  pack,
  notify,
}: {
  diff: CompareState;
  setDiff: (fn: (d: CompareState) => CompareState) => void;
  pack: PackValue;
  notify: (text: string) => void;
}) {
  const openRelease = (which: 'old' | 'new') => async (file: File | undefined) => {
    if (!file) return;
    const read = await packFileText(file);
    if ('error' in read) return notify(`Cannot open ${file.name}: ${read.error}`);
    const r = parsePackText(read.text);
    if (!r.value) return notify(`Cannot open ${file.name}: ${r.error}`);
    setDiff((d) => ({ ...d, [which]: { pack: r.value!, name: file.name }, problems: { ...d.problems, [which]: undefined } }));
  };
  return (
    <main className="editor-pane" aria-label="Compare two releases">
      <h2>Compare two releases</h2>
      <label htmlFor="old-release">Old release</label>
      <input id="old-release" type="file" accept=".json" onChange={(e) => void openRelease('old')(e.target.files?.[0])} />
      <p className="help" data-testid="old-choice">
        {diff.old ? `Chosen: ${diff.old.name}` : 'Choose a pack file.'}
      </p>
      {diff.problems?.old && (
        <p className="field-error error" role="alert" data-testid="old-problem">
          {diff.problems.old}
        </p>
      )}
      <label htmlFor="new-release">New release</label>
      <input id="new-release" type="file" accept=".json" onChange={(e) => void openRelease('new')(e.target.files?.[0])} />
      <p className="help" data-testid="new-choice">
        {diff.new ? `Chosen: ${diff.new.name}` : 'Choose a pack file, or '}
        {!diff.new && (
          <button
            onClick={() =>
              setDiff((d) => ({ ...d, new: { pack, name: 'the pack being edited' }, problems: { ...d.problems, new: undefined } }))
            }
          >
            use the pack being edited
          </button>
        )}
      </p>
      {diff.problems?.new && (
        <p className="field-error error" role="alert" data-testid="new-problem">
          {diff.problems.new}
        </p>
      )}
      <p>
        <button className="primary" disabled={!diff.old || !diff.new} onClick={() => setDiff((d) => ({ ...d, shown: true }))}>
          Compare
        </button>{' '}
        <button onClick={() => setDiff((d) => ({ ...d, open: false }))}>Back to editor</button>
      </p>
    </main>
  );
}
