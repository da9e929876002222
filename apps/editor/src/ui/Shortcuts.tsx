// The `?` dialog: every keyboard shortcut (model/shortcuts.ts), by where it works. Escape or Close
// closes it and gives the focus back where it was.
import { Fragment } from 'react';
import { isMac, SHORTCUTS, shownKeys } from '../model/shortcuts.js';
import { useDialogFocus } from './useDialogFocus.js';

export function Shortcuts({ onClose }: { onClose: () => void }) {
  const ref = useDialogFocus<HTMLDivElement>(onClose);
  const mac = isMac();
  const places = [...new Set(SHORTCUTS.map((s) => s.where))];
  return (
    <div className="palette-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className="dialog shortcuts" role="dialog" aria-modal="true" aria-labelledby="shortcuts-title" ref={ref} tabIndex={-1}>
        <h2 id="shortcuts-title">Keyboard shortcuts</h2>
        {places.map((where) => (
          <Fragment key={where}>
            <h3 className="form-section-title" id={`shortcuts-${where.replace(/\W+/g, '-')}`}>
              {where}
            </h3>
            <table aria-labelledby={`shortcuts-${where.replace(/\W+/g, '-')}`}>
              <tbody>
                {SHORTCUTS.filter((s) => s.where === where).map((s) => (
                  <tr key={s.does}>
                    <th scope="row">
                      {s.keys.map((k, i) => (
                        <Fragment key={k}>
                          {i > 0 && ' '}
                          <kbd>{shownKeys(k, mac)}</kbd>
                        </Fragment>
                      ))}
                    </th>
                    <td>{s.does}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Fragment>
        ))}
        <p>
          <button onClick={onClose}>Close</button>
        </p>
      </div>
    </div>
  );
}

/** The inspector's reminder when no automation is shown: the first keys, and the whole list. */
export function KeyboardHelp({ onAll }: { onAll: () => void }) {
  const mac = isMac();
  return (
    <div>
      <h2>Keyboard</h2>
      <ul className="help key-list">
        {SHORTCUTS.slice(0, 6).map((s) => (
          <li key={s.does}>
            <kbd>{shownKeys(s.keys[0], mac)}</kbd> {s.does}
          </li>
        ))}
      </ul>
      <button onClick={onAll}>
        All shortcuts <kbd>?</kbd>
      </button>
    </div>
  );
}
