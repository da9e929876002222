// "Connect to workspace": a base URL and an API key, checked against the workspace (GET /v1/me).
// The toolbar shows the workspace's name once connected; the key stays in this tab's session.
import { useEffect, useState } from 'react';
import { connect, connectionFromHash, forgetConnection, saveConnection, savedConnection, type Connected } from '../workspace/connection.js';
import { useWorkspace } from '../workspace/catalog.js';

export function ConnectPanel({ onChange, openRequest }: { onChange?: (c: Connected | undefined) => void; openRequest?: number }) {
  // The last read found no server: the toolbar stops saying "connected" in green.
  const down = useWorkspace()?.unreachable ?? false;
  const [open, setOpen] = useState(false);
  const [connected, setConnected] = useState<Connected | undefined>();
  const [baseUrl, setBaseUrl] = useState(() => savedConnection()?.baseUrl ?? 'http://127.0.0.1:8787');
  const [apiKey, setApiKey] = useState('');
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);

  const attempt = async (c: { baseUrl: string; apiKey: string }, quiet = false) => {
    setBusy(true);
    setStatus('Connecting…');
    const r = await connect(c);
    setBusy(false);
    if (r.ok) {
      saveConnection(r.connected);
      setConnected(r.connected);
      setApiKey('');
      setStatus('');
      if (!quiet) setOpen(false);
      onChange?.(r.connected);
    } else {
      setStatus(r.message);
      if (quiet) setOpen(true);
    }
  };

  // A connection handed over by npm start (the address's fragment), or this tab's earlier one.
  useEffect(() => {
    const c = connectionFromHash() ?? savedConnection();
    if (c) {
      setBaseUrl(c.baseUrl);
      void attempt(c, true);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // Asked to open from elsewhere (the command palette's "Connect to workspace…").
  useEffect(() => {
    if (openRequest) setOpen(true);
  }, [openRequest]);

  const disconnect = () => {
    forgetConnection();
    setConnected(undefined);
    setStatus('Disconnected; the key is forgotten.');
    onChange?.(undefined);
  };

  return (
    <>
      <button
        onClick={() => setOpen((o) => !o)}
        aria-expanded={open}
        aria-haspopup="dialog"
        data-testid="connect-button"
        title={connected ? `Connected to ${connected.workspace.name} at ${connected.baseUrl}` : 'Connect to a workspace'}
      >
        {connected ? (
          <>
            <span className={down ? 'connected-dot down' : 'connected-dot'} aria-hidden="true">
              ●
            </span>{' '}
            {connected.workspace.name}
            {down && <span className="sr-only"> (cannot be reached)</span>}
          </>
        ) : (
          'Connect to workspace'
        )}
      </button>
      {open && (
        <div className="popover connect-panel" role="dialog" aria-label="Connect to workspace">
          <form
            onSubmit={(e) => {
              e.preventDefault();
              void attempt({ baseUrl, apiKey });
            }}
          >
            {connected ? (
              <p>
                Connected to <strong>{connected.workspace.name}</strong> at {connected.baseUrl}. Key scopes:{' '}
                <span data-testid="connect-scopes">{connected.scopes.join(', ') || 'none'}</span>.
              </p>
            ) : (
              <p className="help">The key stays in this browser tab only: never in the pack, the saved draft or an export.</p>
            )}
            <label htmlFor="connect-url">Workspace base URL</label>
            <input id="connect-url" type="url" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} required />
            <label htmlFor="connect-key">API key</label>
            <input
              id="connect-key"
              type="password"
              autoComplete="off"
              value={apiKey}
              onChange={(e) => setApiKey(e.target.value)}
              placeholder={connected ? 'connected (enter another key to switch)' : 'sk_…'}
            />
            <p>
              <button className="primary" type="submit" disabled={busy}>
                Connect
              </button>{' '}
              {connected && (
                <button type="button" onClick={disconnect}>
                  Disconnect
                </button>
              )}{' '}
              <button type="button" onClick={() => setOpen(false)}>
                Close
              </button>
            </p>
            <p role="status" className="connect-status" data-testid="connect-status">
              {status}
            </p>
          </form>
        </div>
      )}
    </>
  );
}
