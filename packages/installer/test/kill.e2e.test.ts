// A real `setup-pack install` process killed with SIGKILL in the middle of its writes: the next
// run is locked out until the lock expires, then resumes to exactly a clean install.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { breakLock, install, listLedgers, LockTakenError, readLedger, WorkspaceApiError } from '../src/index.js';
import { cli, clientFor, loadPack, proxyTo, useServer } from './harness.js';

const BIN = fileURLToPath(new URL('../../cli/bin/setup-pack.js', import.meta.url));
const PACK = fileURLToPath(new URL('../../../fixtures/valid/listing-marketing.json', import.meta.url));
const listing = loadPack('valid/listing-marketing.json');

const server = useServer();

/** Forwards to the server(); at the nth write it runs `onWrite` and never answers that request. */
function tripwire(target: string, n: number, onWrite: () => void) {
  let writes = 0;
  return proxyTo(target, (req) => {
    if (req.method === 'GET' || ++writes !== n) return false;
    onWrite();
    return true;
  });
}

/**
 * A `setup-pack install` process SIGKILLed at its `atWrite`th write (8th: among its item writes; 2nd:
 * its first checkpoint, right after the lock), its lock left held for `ttl` seconds.
 */
async function killedInstall(key: string, ttl: number, atWrite = 8) {
  let child: ReturnType<typeof spawn> | undefined;
  const proxy = await tripwire(server().base, atWrite, () => child?.kill('SIGKILL'));
  try {
    child = spawn(process.execPath, [BIN, 'install', PACK, '--lock-ttl', String(ttl)], {
      env: { ...process.env, WORKSPACE_URL: proxy.base, WORKSPACE_API_KEY: key, NO_COLOR: '1' },
      stdio: 'ignore',
    });
    const signal = await new Promise((r) => child!.on('exit', (_code, sig) => r(sig)));
    expect(signal).toBe('SIGKILL');
  } finally {
    await proxy.close();
  }
}

/** Exactly one of everything the listing pack installs, and nothing left to do. */
async function expectCleanInstall(c: ReturnType<typeof clientFor>) {
  const names = async (p: string) => (await c.listAll(p)).map((o: any) => o.name).sort();
  expect(await names('/v1/automations')).toEqual(['Open house invitations', 'Weekly seller update']);
  expect(await names('/v1/smart-lists')).toEqual(['Active buyers', 'Sellers with active listings']);
  expect(await names('/v1/message-templates')).toEqual([
    'Listing brochure',
    'Open house invitation',
    'Showing confirmation',
    'Weekly seller report',
  ]);
  expect((await c.listAll('/v1/media')).length).toBe(2);
  expect((await names('/v1/pipelines')).filter((n) => n === 'Listings')).toHaveLength(1);
  expect((await install(c, listing)).plan.hasChanges).toBe(false);
}

describe('a killed install process', () => {
  it('resumes after the lock expires, with no duplicates', async () => {
    const ws = await server().workspace();
    await killedInstall(ws.key, 30);
    const c = clientFor(server(), ws.key);
    const [record] = await listLedgers(c);
    expect(record.ledger.state).toBe('in_progress');
    expect(record.lock?.holder).toMatch(/^setup-pack-/);

    const locked = await install(c, listing).catch((e) => e);
    expect(locked).toBeInstanceOf(WorkspaceApiError);
    expect((locked as WorkspaceApiError).status).toBe(409);

    server().clock.advance(31_000);
    const resumed = await install(c, listing);
    expect(resumed.plan.summary.create).toBeLessThan(resumed.plan.steps.length - 1);
    await expectCleanInstall(c);
    // What the killed run created is the pack's own (recognised by its idempotency keys), so uninstall removes it all.
    const [after] = await listLedgers(c);
    expect(Object.values(after.ledger.items).every((i) => i.owned)).toBe(true);
    expect(resumed.plan.summary.adopt).toBe(0);
  });

  it('leaves its lock, which `setup-pack unlock` breaks by naming its holder (another name is refused); the next install resumes at once', async () => {
    const ws = await server().workspace();
    await killedInstall(ws.key, 300);
    const env = { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: ws.key };
    const c = clientFor(server(), ws.key);
    const [record] = await listLedgers(c);
    const holder = record.lock!.holder;
    const until = record.lock!.expires_at;
    expect(holder).toMatch(/^setup-pack-[a-z0-9]+$/);

    // The refused install says who holds the lock, until when, and how to break it: one line, exit 1.
    const refused = await cli(['install', 'valid/listing-marketing.json'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `setup-pack: invalid_request_error (HTTP 409): Another install of this pack holds the lock (${holder}) until ${until} [lock]; if no run is in progress (one crashed or was killed), break it: setup-pack unlock ${listing.packId} ${holder}\n`,
    );
    const refusedJson = JSON.parse((await cli(['install', 'valid/listing-marketing.json', '--format', 'json'], env)).stdout);
    expect(refusedJson.error).toMatchObject({ status: 409, param: 'lock', lock: { holder, expires_at: until } });
    const taken = await install(c, listing).catch((e) => e);
    expect(taken).toBeInstanceOf(LockTakenError);
    expect(taken).toMatchObject({ status: 409, packId: listing.packId, holder, expiresAt: until });
    // status shows the holder too.
    expect((await cli(['status'], env)).stdout).toContain(` locked by ${holder} until ${until}`);

    // Another name breaks nothing: exit 1, naming the holder.
    const wrong = await cli(['unlock', listing.packId, 'setup-pack-other'], env);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toBe('');
    expect(wrong.stderr).toBe(
      `setup-pack: not released: the install lock of ${listing.packId} is held by ${holder} until ${until}, not by setup-pack-other\n`,
    );
    expect(await breakLock(c, listing.packId, 'setup-pack-other')).toEqual({
      packId: listing.packId,
      released: false,
      reason: 'held',
      holder,
      expiresAt: until,
    });
    expect((await listLedgers(c))[0].lock).toEqual({ holder, expires_at: until });

    // The holder's name releases it.
    const broken = await cli(['unlock', listing.packId, holder], env);
    expect(broken.stderr).toBe('');
    expect(broken.code).toBe(0);
    expect(broken.stdout).toBe(`Released the install lock of ${listing.packId} held by ${holder}.\n`);
    expect((await listLedgers(c))[0].lock).toBeNull();
    // Twice: nothing to release, exit 1.
    const again = await cli(['unlock', listing.packId, holder, '--format', 'json'], env);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toEqual({
      version: 1,
      packId: listing.packId,
      holder,
      released: false,
      reason: 'not-held',
      lock: null,
    });
    expect(again.stderr).toBe(
      `setup-pack: not released: the install lock of ${listing.packId} is not held by ${holder} (nothing to release)\n`,
    );

    // The next install resumes at once (no clock advanced), with no duplicates.
    const resumed = await install(c, listing);
    expect(resumed.written).toBeGreaterThan(0);
    expect(resumed.plan.summary.adopt).toBe(0);
    await expectCleanInstall(c);
    const [after] = await listLedgers(c);
    expect(after.ledger.state).toBe('installed');
    expect(Object.values(after.ledger.items).every((i) => i.owned)).toBe(true);
  });
});

describe('a run killed between taking the lock and its first checkpoint', () => {
  it('leaves a lock on a pack with no ledger: GET, the list and `setup-pack status` show it with its holder, and unlock breaks it', async () => {
    const ws = await server().workspace();
    await killedInstall(ws.key, 300, 2);
    const env = { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: ws.key };
    const c = clientFor(server(), ws.key);
    const [record, ...more] = await listLedgers(c);
    expect(more).toEqual([]);
    expect(record.ledger).toBeNull();
    const holder = record.lock!.holder;
    const until = record.lock!.expires_at;
    expect(holder).toMatch(/^setup-pack-[a-z0-9]+$/);
    // Nothing is installed: the planner and export see no ledger.
    expect(await readLedger(c, listing.packId)).toBeNull();

    const hint = `if no run is in progress (one crashed or was killed), break it: setup-pack unlock ${listing.packId} ${holder}`;
    const status = await cli(['status'], env);
    expect(status.code).toBe(0);
    expect(status.stdout).toBe(
      `${listing.packId} no ledger yet (a run took the install lock and wrote no checkpoint) locked by ${holder} until ${until}; ${hint}\n`,
    );
    const json = JSON.parse((await cli(['status', '--format', 'json'], env)).stdout);
    expect(json.packs).toEqual([
      {
        packId: listing.packId,
        name: null,
        version: null,
        state: 'locked',
        targetVersion: null,
        items: 0,
        lock: { holder, expires_at: until },
        updatedAt: record.updated_at,
      },
    ]);

    // The refused install names the holder as before.
    const refused = await cli(['install', 'valid/listing-marketing.json'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `setup-pack: invalid_request_error (HTTP 409): Another install of this pack holds the lock (${holder}) until ${until} [lock]; ${hint}\n`,
    );

    const broken = await cli(['unlock', listing.packId, holder], env);
    expect(broken.code).toBe(0);
    expect((await cli(['status'], env)).stdout).toBe('No packs are installed in this workspace.\n');
    expect((await install(c, listing)).written).toBeGreaterThan(0);
    await expectCleanInstall(c);
  });
});

describe('who holds a refused lock', () => {
  /** The requests a proxy saw, and a client through it whose 409 answers `edit` rewrites. */
  async function through(edit: (error: Record<string, unknown>) => void) {
    const seen: string[] = [];
    const proxy = await proxyTo(
      server().base,
      (req) => (seen.push(`${req.method} ${req.url}`), false),
      (status, text) => {
        if (status !== 409) return text;
        const body = JSON.parse(text);
        edit(body.error);
        return JSON.stringify(body);
      },
    );
    return { seen, proxy };
  }

  it("is read from the error's lock field, whatever its message says, with no further request", async () => {
    const ws = await server().workspace();
    const c = clientFor(server(), ws.key);
    const at = `/v1/install-ledgers/${listing.packId}`;
    const taken = await c.post(`${at}/lock`, { holder: 'run-elsewhere', ttl_seconds: 60 });
    const { seen, proxy } = await through((e) => (e.message = 'Das Paket ist gesperrt.'));
    try {
      const p = clientFor(server(), ws.key, {}, proxy.base);
      const refused = await install(p, listing).catch((e) => e);
      expect(refused).toBeInstanceOf(LockTakenError);
      expect(refused).toMatchObject({
        status: 409,
        packId: listing.packId,
        holder: 'run-elsewhere',
        expiresAt: taken.expires_at,
        message: 'Das Paket ist gesperrt.',
      });
      expect(seen.at(-1)).toBe(`POST ${at}/lock`);
      seen.length = 0;
      expect(await breakLock(p, listing.packId, 'run-mine')).toEqual({
        packId: listing.packId,
        released: false,
        reason: 'held',
        holder: 'run-elsewhere',
        expiresAt: taken.expires_at,
      });
      expect(seen).toEqual([`POST ${at}/unlock`]);
    } finally {
      await proxy.close();
    }
  });

  it('from a server whose 409 has no lock field, is read from GET of the ledger record, a lock-only one too', async () => {
    const ws = await server().workspace();
    const c = clientFor(server(), ws.key);
    const at = `/v1/install-ledgers/${listing.packId}`;
    const taken = await c.post(`${at}/lock`, { holder: 'run-elsewhere', ttl_seconds: 60 });
    const { seen, proxy } = await through((e) => {
      delete e.lock;
      e.message = 'Locked.';
    });
    try {
      const p = clientFor(server(), ws.key, {}, proxy.base);
      const refused = await install(p, listing).catch((e) => e);
      expect(refused).toBeInstanceOf(LockTakenError);
      expect(refused).toMatchObject({ status: 409, holder: 'run-elsewhere', expiresAt: taken.expires_at });
      expect(seen.slice(-2)).toEqual([`POST ${at}/lock`, `GET ${at}`]);
      expect(await breakLock(p, listing.packId, 'run-mine')).toMatchObject({
        released: false,
        reason: 'held',
        holder: 'run-elsewhere',
        expiresAt: taken.expires_at,
      });
    } finally {
      await proxy.close();
    }
  });
});
