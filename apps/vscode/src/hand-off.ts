// How "Open in Setup Pack editor" hands a pack to the web editor: the editor opens `?pack=<address>`
// by fetching it, and a browser page cannot read a file of the disk. So the extension serves the
// pack's text (unsaved edits included) at an address of its own: 127.0.0.1 only, under a random
// token per pack, for as long as VS Code runs. The editor is another origin, hence CORS; the token,
// 128 random bits, is what keeps other pages from reading it.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The packs handed off most recently stay available (a reload of the editor fetches again). */
const KEEP = 20;

export class HandOff {
  private server: Server | undefined;
  private listening: Promise<number> | undefined;
  private readonly offers = new Map<string, string>();

  /** Serves `text` as `name` (a file name); returns its address. */
  async offer(name: string, text: string): Promise<string> {
    const port = await this.start();
    const path = `/${randomBytes(16).toString('hex')}/${encodeURIComponent(name)}`;
    this.offers.set(path, text);
    for (const old of this.offers.keys()) if (this.offers.size > KEEP) this.offers.delete(old);
    return `http://127.0.0.1:${port}${path}`;
  }

  close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.listening = undefined;
    return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }

  private start(): Promise<number> {
    this.listening ??= new Promise((resolve, reject) => {
      const server = createServer((req, res) => {
        res.setHeader('access-control-allow-origin', '*');
        const text = req.method === 'GET' ? this.offers.get((req.url ?? '').split('?')[0]) : undefined;
        if (text === undefined) {
          res.writeHead(req.method === 'GET' ? 404 : 405, { 'content-type': 'text/plain; charset=utf-8' });
          return res.end(req.method === 'GET' ? 'No pack at this address: open it from VS Code again.\n' : 'Only GET.\n');
        }
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
        res.end(text);
      });
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
      this.server = server;
    });
    return this.listening;
  }
}

/** The editor's address opening `packUrl`: `?pack=` added to the configured address. */
export function editorAddress(editorUrl: string, packUrl: string): string {
  let url: URL;
  try {
    url = new URL(editorUrl.trim());
    if (!/^https?:$/.test(url.protocol)) throw new Error();
  } catch {
    throw new Error(
      `setupPack.editorUrl must be the web editor's address (http or https), such as http://127.0.0.1:5173/, not "${editorUrl}".`,
    );
  }
  url.searchParams.set('pack', packUrl);
  return url.href;
}
