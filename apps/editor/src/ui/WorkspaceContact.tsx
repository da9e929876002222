// A real contact of the connected workspace for the Simulate panel: search the workspace's contacts
// (GET /v1/contacts?q=, as `setup-pack simulate --contact-id` reads one) and take one as the
// simulated contact. The contact comes in the API's own shape, which core's simulator reads (its
// tags and stage matched to the pack's by name), and lands in the panel's contact box, where it can
// still be edited. Shown only while a workspace is connected.
import { useState } from 'react';
import { readFailure, useWorkspace } from '../workspace/catalog.js';

interface ContactRow {
  id: string;
  first_name?: string | null;
  last_name?: string | null;
  emails?: { value?: string }[] | null;
}

const nameOf = (c: ContactRow) => [c.first_name, c.last_name].filter(Boolean).join(' ') || c.id;

export function WorkspaceContact({ onContact }: { onContact: (json: string) => void }) {
  const workspace = useWorkspace();
  const [q, setQ] = useState('');
  const [found, setFound] = useState<ContactRow[] | undefined>();
  const [status, setStatus] = useState('');
  if (!workspace) return null;
  const { connected } = workspace;
  const find = async () => {
    setStatus('Searching…');
    try {
      const page = await workspace.client().get<{ data: ContactRow[] }>(`/v1/contacts?limit=10&q=${encodeURIComponent(q.trim())}`);
      setFound(page.data);
      setStatus(page.data.length ? '' : `No contact of ${connected.workspace.name} matches "${q.trim()}".`);
    } catch (e) {
      setFound(undefined);
      setStatus(readFailure(connected, e));
    }
  };
  return (
    <div className="simulate-workspace-contact" role="group" aria-label="Contact from the workspace">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void find();
        }}
      >
        <label>
          A contact of {connected.workspace.name}{' '}
          <input
            type="search"
            value={q}
            placeholder="name or email"
            onChange={(e) => setQ(e.target.value)}
            aria-label={`Search the contacts of ${connected.workspace.name}`}
          />
        </label>{' '}
        <button type="submit">Find</button>
      </form>
      {status && (
        <p className="help" role="status" data-testid="workspace-contact-status">
          {status}
        </p>
      )}
      {found && found.length > 0 && (
        <ul className="simulate-contacts" aria-label="Contacts found">
          {found.map((c) => (
            <li key={c.id}>
              <button
                className="link"
                onClick={() => {
                  onContact(JSON.stringify(c, null, 2));
                  setStatus(`Simulating ${nameOf(c)} (${c.id}) as ${connected.workspace.name} has them.`);
                  setFound(undefined);
                }}
              >
                {nameOf(c)}
              </button>
              {c.emails?.[0]?.value ? <span className="help"> {c.emails[0].value}</span> : null}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
