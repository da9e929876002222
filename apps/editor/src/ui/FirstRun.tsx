// What an empty place says: what goes there and the one thing to do next (an automation with no
// blocks, a pack with no items), instead of a blank canvas or "Nothing selected.".
import type { ReactNode } from 'react';

/** `inline`: in the flow of a form; else over the canvas, in its middle. */
export function FirstRun({
  title,
  action,
  onAction,
  inline,
  children,
}: {
  title: string;
  action: string;
  onAction: () => void;
  inline?: boolean;
  children: ReactNode;
}) {
  return (
    <div className={inline ? 'first-run inline' : 'first-run'}>
      <div role="region" aria-label={title}>
        <h2>{title}</h2>
        <p>{children}</p>
        <button className="primary" onClick={onAction}>
          {action}
        </button>
      </div>
    </div>
  );
}
