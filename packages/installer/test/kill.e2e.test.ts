// A real `setup-pack install` process killed with SIGKILL in the middle of its writes: the next
// run is locked out until the lock expires, then resumes to exactly a clean install.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { breakLock, install, listLedgers, LockTakenError, WorkspaceApiError } from '../src/index.js';
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

/** A `setup-pack install` process SIGKILLed at its 8th write, its lock left held for `ttl` seconds. */
async function killedInstall(key: string, ttl: number) {
  let child: ReturnType<typeof spawn> | undefined;
  const proxy = await tripwire(server().base, 8, () => child?.kill('SIGKILL'));
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
  expect(await names('/v1/message-templates')).toEqual(['Listing brochure', 'Open house invitation', 'Showing confirmation', 'Weekly seller report']);
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
    const names = async (p: string) => (await c.listAll(p)).map((o: any) => o.name).sort();
    expect(await names('/v1/automations')).toEqual(['Open house invitations', 'Weekly seller update']);
    expect(await names('/v1/smart-lists')).toEqual(['Active buyers', 'Sellers with active listings']);
    expect(await names('/v1/message-templates')).toEqual(['Listing brochure', 'Open house invitation', 'Showing confirmation', 'Weekly seller report']);
    expect((await c.listAll('/v1/media')).length).toBe(2);
    expect((await names('/v1/pipelines')).filter((n) => n === 'Listings')).toHaveLength(1);
    expect((await install(c, listing)).plan.hasChanges).toBe(false);
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
    expect(refused.stderr).toBe(`setup-pack: invalid_request_error (HTTP 409): Another install of this pack holds the lock (${holder}) until ${until} [lock]; if no run is in progress (one crashed or was killed), break it: setup-pack unlock ${listing.packId} ${holder}\n`);
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
    expect(wrong.stderr).toBe(`setup-pack: not released: the install lock of ${listing.packId} is held by ${holder} until ${until}, not by setup-pack-other\n`);
    expect(await breakLock(c, listing.packId, 'setup-pack-other')).toEqual({ packId: listing.packId, released: false, reason: 'held', holder, expiresAt: until });
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
    expect(JSON.parse(again.stdout)).toEqual({ version: 1, packId: listing.packId, holder, released: false, reason: 'not-held', lock: null });
    expect(again.stderr).toBe(`setup-pack: not released: the install lock of ${listing.packId} is not held by ${holder} (nothing to release)\n`);

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
