// The install lifecycle as a model-based property (fast-check commands), against the real server
// over HTTP: generated sequences of installs, upgrades to generated next releases (with and
// without --prune), a user's edits and deletions through the API, uninstalls, reinstalls, and
// installs killed at a random write and resumed. After every step:
//   1. an object the user edited is never changed or deleted (no step passes --overwrite);
//   2. an object the pack did not create in its current install (the workspace's own, one it
//      adopted, one an uninstall left to the workspace) is never deleted;
//   3. after an install, the ledger names only objects that exist, and owns only objects the pack
//      created in this install (never one it found in the workspace);
//   4. after an install, a second plan writes nothing.
// FUZZ_RUNS sequences (a small default in npm test, 10,000 in npm run fuzz); FUZZ_SEED replays one.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  COLLECTION_PATH,
  normalizeName,
  type InstallLedger,
  type Pack,
  type WorkspaceCollection,
  type WorkspaceObject,
} from '@setup-pack/core';
import { editRequest, fuzzConfig, nextRelease, validPack, type HandEdit } from '@setup-pack/testkit';
import { fetchSnapshot, install, planInstall, PlanFailedError, readLedger, uninstall, type WorkspaceClient } from '../src/index.js';
import { clientFor, defaultNames, fuzzWorkspace, fuzzWorkspaceKey, namesOf, useServer, type Server } from './harness.js';

const server = useServer();
const { numRuns, seed, timeoutMs } = fuzzConfig('install lifecycle (model-based)', 6);

/** The collections an install writes: where the invariants look. */
const COLLECTIONS: WorkspaceCollection[] = [
  'tags',
  'contact_stages',
  'lead_sources',
  'custom_fields',
  'pipelines',
  'message_templates',
  'media',
  'smart_lists',
  'automations',
];

interface Model {
  releases: Pack[];
  /** The release the next install installs. */
  target: number;
  /** Whether the pack is installed (a ledger exists). */
  installed: boolean;
  /** Objects the user edited through the API (id → the object as the edit left it). */
  edited: Map<string, string>;
  /** Objects the pack did not create in its current install: the workspace's own, adopted, or left by an uninstall. */
  notThePacks: Set<string>;
  /** Objects the user deleted through the API. */
  deleted: Set<string>;
  edits: number;
}

interface Real {
  server: Server;
  c: WorkspaceClient;
  key: string;
}

type Cmd = fc.AsyncCommand<Model, Real>;

const objectText = (o: WorkspaceObject) => {
  const { updated_at: _u, ...rest } = o as WorkspaceObject & { updated_at?: unknown };
  return JSON.stringify(rest);
};

async function everything(c: WorkspaceClient): Promise<Map<string, { collection: WorkspaceCollection; obj: WorkspaceObject }>> {
  const snapshot = await fetchSnapshot(c, COLLECTIONS);
  const out = new Map<string, { collection: WorkspaceCollection; obj: WorkspaceObject }>();
  for (const collection of COLLECTIONS) for (const obj of snapshot.collections[collection] ?? []) out.set(obj.id, { collection, obj });
  return out;
}

/** Invariants 1 and 2, after any step. */
async function checkKept(m: Model, r: Real): Promise<Map<string, { collection: WorkspaceCollection; obj: WorkspaceObject }>> {
  const now = await everything(r.c);
  for (const [id, text] of m.edited) {
    expect(now.has(id), `the user's edited object ${id} was deleted`).toBe(true);
    expect(objectText(now.get(id)!.obj), `the user's edited object ${id} was changed`).toBe(text);
  }
  for (const id of m.notThePacks) if (!m.deleted.has(id)) expect(now.has(id), `${id}, not the pack's, was deleted`).toBe(true);
  return now;
}

/** Invariants 3 and 4, after a completed install. */
async function checkInstalled(m: Model, r: Real): Promise<void> {
  const now = await checkKept(m, r);
  const ledger = (await readLedger(r.c, m.releases[m.target].packId))!.ledger as InstallLedger;
  expect(ledger.state).toBe('installed');
  for (const [itemId, item] of Object.entries(ledger.items)) {
    if (item.collection === 'brand') continue;
    expect(now.has(item.workspaceId), `the ledger's ${itemId} names ${item.workspaceId}, which does not exist`).toBe(true);
    if (item.owned)
      expect(
        m.notThePacks.has(item.workspaceId),
        `the ledger owns ${itemId} = ${item.workspaceId}, which the pack did not create in this install`,
      ).toBe(false);
    else m.notThePacks.add(item.workspaceId);
  }
  const again = await planInstall(r.c, m.releases[m.target]);
  expect(again.plan.steps.filter((s) => s.write).map((s) => `${s.action} ${s.itemId}: ${s.reason}`)).toEqual([]);
}

/** An install the plan may refuse only for a stage a kept (edited) pipeline lacks: documented, nothing written. */
async function installOrRefused(c: WorkspaceClient, pack: Pack, prune: boolean): Promise<boolean> {
  try {
    await install(c, pack, { prune });
    return true;
  } catch (e) {
    if (e instanceof PlanFailedError && e.plan.errors.every((x) => /has no such stage in the workspace/.test(x.message))) return false;
    throw e;
  }
}

class InstallCmd implements Cmd {
  constructor(
    readonly upgrade: boolean,
    readonly prune: boolean,
  ) {}
  check = (m: Readonly<Model>) => (this.upgrade ? m.installed && m.target + 1 < m.releases.length : true);
  async run(m: Model, r: Real) {
    const target = this.upgrade ? m.target + 1 : m.target;
    if (!(await installOrRefused(r.c, m.releases[target], this.prune))) return void (await checkKept(m, r));
    m.target = target;
    m.installed = true;
    await checkInstalled(m, r);
  }
  toString = () => `${this.upgrade ? 'upgrade' : 'install'}${this.prune ? ' --prune' : ''}`;
}

/** An install whose process dies at its kth write (before it reaches the workspace, or after), then run again. */
class KilledInstallCmd implements Cmd {
  constructor(
    readonly upgrade: boolean,
    readonly k: number,
    readonly after: boolean,
  ) {}
  check = (m: Readonly<Model>) => (this.upgrade ? m.installed && m.target + 1 < m.releases.length : true);
  async run(m: Model, r: Real) {
    const target = this.upgrade ? m.target + 1 : m.target;
    let writes = 0;
    let dead = false;
    const dying: typeof fetch = async (input, init) => {
      if (!dead && (init?.method ?? 'GET') !== 'GET' && ++writes === this.k) {
        dead = true;
        if (this.after) await (await fetch(input, init)).text();
      }
      if (dead) throw new TypeError('fetch failed', { cause: Object.assign(new Error('killed'), { code: 'ECONNRESET' }) });
      return fetch(input, init);
    };
    const killed = clientFor(r.server, r.key, { fetch: dying, maxRetries: 0 });
    const finished = await installOrRefused(killed, m.releases[target], false).catch((e) => {
      if (!dead) throw e;
      return 'killed' as const;
    });
    if (finished === false) return void (await checkKept(m, r));
    await checkKept(m, r);
    // The dead run's lock expires (it may have died releasing it); the next run resumes.
    if (dead) r.server.clock.advance(3_600_000);
    if (!(await installOrRefused(r.c, m.releases[target], false))) return void (await checkKept(m, r));
    m.target = target;
    m.installed = true;
    await checkInstalled(m, r);
  }
  toString = () =>
    `killed ${this.upgrade ? 'upgrade' : 'install'} at write ${this.k} (${this.after ? 'after' : 'before'} it reached the workspace), resumed`;
}

/** A user's edit or deletion of one object the ledger holds, through the API. */
class EditCmd implements Cmd {
  constructor(
    readonly pick: number,
    readonly what: HandEdit['what'],
  ) {}
  check = (m: Readonly<Model>) => m.installed;
  async run(m: Model, r: Real) {
    const ledger = (await readLedger(r.c, m.releases[m.target].packId))!.ledger;
    const items = Object.values(ledger.items)
      .filter((i) => i.collection !== 'brand')
      .sort((a, b) => (a.key < b.key ? -1 : 1));
    const now = await everything(r.c);
    const live = items.filter((i) => now.has(i.workspaceId));
    if (!live.length) return;
    const item = live[this.pick % live.length];
    const obj = now.get(item.workspaceId)!.obj;
    const req = editRequest(item.collection, obj, { pick: 0, what: this.what }, ++m.edits);
    if (!req || req.method === 'POST') return;
    const path = `${COLLECTION_PATH[item.collection]}/${encodeURIComponent(obj.id)}${req.path ?? ''}`;
    if (req.method === 'DELETE') {
      await r.c.delete(path);
      m.deleted.add(obj.id);
      m.edited.delete(obj.id);
    } else {
      await r.c.patch(path, req.body);
      const after = (await everything(r.c)).get(obj.id)!.obj;
      m.edited.set(obj.id, objectText(after));
    }
    await checkKept(m, r);
  }
  toString = () => `user ${this.what === 'delete' ? 'deletes' : `edits (${this.what})`} installed object #${this.pick}`;
}

class UninstallCmd implements Cmd {
  check = (m: Readonly<Model>) => m.installed;
  async run(m: Model, r: Real) {
    await uninstall(r.c, m.releases[m.target].packId);
    m.installed = false;
    // What is left belongs to the workspace: a next install must not take it back as its own.
    for (const id of (await checkKept(m, r)).keys()) m.notThePacks.add(id);
    expect(await readLedger(r.c, m.releases[m.target].packId)).toBeNull();
  }
  toString = () => 'uninstall';
}

const commands = [
  fc.boolean().map((prune) => new InstallCmd(false, prune)),
  fc.boolean().map((prune) => new InstallCmd(true, prune)),
  fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 12 }), fc.boolean()).map(([up, k, after]) => new KilledInstallCmd(up, k, after)),
  fc
    .tuple(fc.nat(), fc.constantFrom<HandEdit['what']>('rename', 'content', 'remove-stage', 'delete'))
    .map(([pick, what]) => new EditCmd(pick, what)),
  fc.constant(new UninstallCmd()),
];

/** A release's added items keyed apart, so the release after it can add items of its own (nextRelease keys them `added …`). */
function addedKeysApart(pack: Pack): Pack {
  const p = structuredClone(pack);
  for (const list of [p.resources, p.messageTemplates, p.smartLists])
    for (const item of list ?? []) if (item.key.startsWith('added ')) item.key = `earlier ${item.key}`;
  return p;
}

/** A generated pack and two releases after it, each with a version above the one before. */
const releases = validPack({ maxItems: 2 }).chain((first) =>
  nextRelease(first)
    .map(addedKeysApart)
    .chain((second) =>
      nextRelease({ ...second, version: '1.0.0' }).map((third) => [
        first,
        { ...second, version: '1000.0.0' },
        { ...third, version: '1000.0.1' },
      ]),
    ),
);

describe('the install lifecycle, model-based', () => {
  it(
    `keeps the user's objects and its own ledger true over ${numRuns} generated sequences`,
    async () => {
      const taken = await defaultNames(await fuzzWorkspace(server()));
      await fc.assert(
        fc.asyncProperty(releases, fc.commands(commands, { maxCommands: 8 }), async (packs, cmds) => {
          // An item named like one a new workspace holds is adopted, not created (docs/install.md).
          fc.pre(packs.every((p) => !namesOf(p).some((n) => taken.has(normalizeName(n)))));
          const { c, key } = await fuzzWorkspaceKey(server());
          const initial = await everything(c);
          const model: Model = {
            releases: packs,
            target: 0,
            installed: false,
            edited: new Map(),
            notThePacks: new Set(initial.keys()),
            deleted: new Set(),
            edits: 0,
          };
          await fc.asyncModelRun(() => ({ model, real: { server: server(), c, key } }), cmds);
        }),
        { numRuns, seed, endOnFailure: true },
      );
    },
    timeoutMs(20_000),
  );
});
