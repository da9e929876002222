// An install's idempotency keys belong to its generation: a resumed run replays its own creations,
// but a new install after an uninstall creates anew, never taking back an object the workspace
// kept (the user's edited copy) as the pack's own.
import { describe, expect, it } from 'vitest';
import { install, readLedger, uninstall, WorkspaceClient } from '../src/index.js';
import { clientFor, loadPack, useServer } from './harness.js';

const v100 = loadPack('releases/buyer-lead-1.0.0.json');
const server = useServer();
const all = (c: WorkspaceClient, path: string) => c.listAll<any>(path);

describe('install generations', () => {
  it('a reinstall after an uninstall that kept an edited object creates a new one, and the next uninstall keeps the edited one', async () => {
    const ws = await server().workspace();
    const c = clientFor(server(), ws.key);
    await install(c, v100);
    const tag = (await all(c, '/v1/tags')).find((t) => t.name === 'Buyer lead');
    await c.patch(`/v1/tags/${tag.id}`, { name: 'Buyer lead (edited)' });

    const first = await uninstall(c, v100.packId);
    expect(first.kept.map((s) => s.key)).toContain('tag-buyer-lead');

    const again = await install(c, v100);
    expect(again.plan.steps.find((s) => s.key === 'tag-buyer-lead')?.action).toBe('create');
    const tags = await all(c, '/v1/tags');
    const created = tags.find((t) => t.name === 'Buyer lead');
    expect(created, 'the reinstall creates a new "Buyer lead"').toBeDefined();
    expect(created.id).not.toBe(tag.id);
    expect((await readLedger(c, v100.packId))!.ledger.items['resource:tag-buyer-lead'].workspaceId).toBe(created.id);

    await uninstall(c, v100.packId);
    const left = await all(c, '/v1/tags');
    expect(left.find((t) => t.id === tag.id)?.name).toBe('Buyer lead (edited)');
    expect(left.find((t) => t.id === created.id)).toBeUndefined();
  });
});

describe('a creation answered from before the run', () => {
  it('the client tells a replayed creation from a new one, and from the retry of its own lost answer', async () => {
    const ws = await server().workspace();
    const c = clientFor(server(), ws.key);
    const first = await c.create<any>('/v1/tags', { name: 'Replay me', idempotency_key: 'test-replay-1' });
    expect(first.replayed).toBe(false);
    const again = await c.create<any>('/v1/tags', { name: 'Replay me', idempotency_key: 'test-replay-1' });
    expect(again).toEqual({ object: first.object, replayed: true });
    // The first attempt's answer is lost after the server acted: the retry's replay is this call's own object.
    let calls = 0;
    const losing: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (++calls === 1) throw new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
      return res;
    };
    const lost = await clientFor(server(), ws.key, { fetch: losing }).create<any>('/v1/tags', {
      name: 'Lost answer',
      idempotency_key: 'test-replay-2',
    });
    expect(calls).toBe(2);
    expect(lost.replayed).toBe(false);
    expect((await all(c, '/v1/tags')).filter((t) => t.name === 'Lost answer')).toHaveLength(1);
  });

  it('an install whose creation is answered with an object made before it stops, naming the item, and records nothing of it', async () => {
    const ws = await server().workspace();
    const c = clientFor(server(), ws.key);
    const earlier = await c.create<any>('/v1/tags', { name: 'Somebody else', idempotency_key: 'test-collision' });
    // Every tag creation of the run reuses that key, as a key reaching across installs did.
    const colliding: typeof fetch = async (input, init) => {
      if (init?.method === 'POST' && String(input).endsWith('/v1/tags')) {
        init = { ...init, body: JSON.stringify({ ...JSON.parse(String(init.body)), idempotency_key: 'test-collision' }) };
      }
      return fetch(input, init);
    };
    const run = install(clientFor(server(), ws.key, { fetch: colliding }), v100);
    await expect(run).rejects.toThrow(
      /^creating resource \S+ "[^"]+": the workspace answered with tag_\w+, an object an earlier request made under the same idempotency key, where the plan said the item is new/,
    );
    const ledger = (await readLedger(c, v100.packId))?.ledger;
    expect(Object.values(ledger?.items ?? {}).map((i) => i.workspaceId)).not.toContain(earlier.object.id);
  });
});
