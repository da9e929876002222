// A real `setup-pack install` process killed with SIGKILL in the middle of its writes: the next
// run is locked out until the lock expires, then resumes to exactly a clean install.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { install, listLedgers, WorkspaceApiError } from '../src/index.js';
import { clientFor, loadPack, proxyTo, useServer } from './harness.js';

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

describe('a killed install process', () => {
  it('resumes after the lock expires, with no duplicates', async () => {
    const ws = await server().workspace();
    let child: ReturnType<typeof spawn> | undefined;
    const proxy = await tripwire(server().base, 8, () => child?.kill('SIGKILL'));
    try {
      child = spawn(process.execPath, [BIN, 'install', PACK, '--lock-ttl', '30'], {
        env: { ...process.env, WORKSPACE_URL: proxy.base, WORKSPACE_API_KEY: ws.key, NO_COLOR: '1' },
        stdio: 'ignore',
      });
      const signal = await new Promise((r) => child!.on('exit', (_code, sig) => r(sig)));
      expect(signal).toBe('SIGKILL');
    } finally {
      await proxy.close();
    }
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
});
