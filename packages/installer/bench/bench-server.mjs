// What the installer benches share: the real workspace server in-process on PGlite with a manual
// clock (the client's waiting advances it, so rate-limit time costs no real sleeping), its admin
// API, and a fresh workspace with one member and a full_access key at a given limit.
import { buildServer, ManualClock, openStore } from '@setup-pack/workspace-server';

const ADMIN = 'bench-admin';

/** `corsOrigins`: browser origins allowed to call the API (the editor bench's page). */
export async function startBenchServer({ corsOrigins } = {}) {
  const store = await openStore({ memory: true });
  const clock = new ManualClock('2026-11-21T22:00:00.000Z');
  const app = await buildServer({ store, clock, adminToken: ADMIN, ...(corsOrigins ? { corsOrigins } : {}) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${app.server.address().port}`;
  async function admin(path, body) {
    const r = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
    return r.json();
  }
  let n = 0;
  /** A new workspace (name, slug unique per run) and its full_access key. */
  async function workspace(name, ratePerMinute) {
    const slug = `bench-${++n}-${Date.now().toString(36)}`;
    const ws = await admin('/admin/workspaces', { name: name ?? slug, slug, rate_limit_per_minute: ratePerMinute });
    await admin(`/admin/workspaces/${ws.id}/members`, { name: 'Jordan Lee', email: 'jordan@example.test' });
    return (await admin(`/admin/workspaces/${ws.id}/api-keys`, { scopes: ['full_access'] })).secret;
  }
  async function close() {
    await app.close();
    await store.close();
  }
  return { base, clock, workspace, close };
}
