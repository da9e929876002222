// What opening a pack lost (numbers read as others, properties written twice), or that unsaved
// work was restored: said until dismissed, with the way back to a clean start.
import { drafts } from './drafts.js';

export function OpenBanner({ text, onOk }: { text: string; onOk: () => void }) {
  return (
    <div className="banner" role="status">
      {text}
      <button onClick={onOk}>OK</button>
      <button onClick={() => void drafts.clear().finally(() => location.reload())}>Discard and reload</button>
    </div>
  );
}
