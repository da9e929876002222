// Load for the fault suites (faults.postgres.test.ts, faults.fuzz.test.ts): a real `serve` process
// driven by a few clients that create, change, delete and list contacts while the database fails
// under them, every answer recorded; then what the database holds is checked against the answers.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { expect } from 'vitest';
import { ADMIN_TOKEN, Client } from './harness.js';

export interface Answer {
  op: 'create' | 'patch' | 'delete' | 'list';
  status: number;
  retryAfter: string | null;
  /** The contact's marker (its last name), the id it was given or acted on, and a PATCH's job title. */
  marker?: string;
  id?: string;
  title?: string;
}

/** A workspace of the server, and a key of it with every scope. */
export async function faultWorkspace(base: string): Promise<Client> {
  const admin = new Client(base, ADMIN_TOKEN);
  const slug = `faults-${randomBytes(4).toString('hex')}`;
  for (let attempt = 0; ; attempt++) {
    const ws = await admin.post('/admin/workspaces', { name: slug, slug, rate_limit_per_minute: 1_000_000 });
    if (ws.status !== 201) throw new Error(`workspace: ${ws.status} ${JSON.stringify(ws.body)}`);
    const key = await admin.post(`/admin/workspaces/${ws.body.id}/api-keys`, { scopes: ['full_access'] });
    if (key.status === 201) return new Client(base, key.body.secret);
    if (attempt > 3) throw new Error(`key: ${key.status} ${JSON.stringify(key.body)}`);
  }
}

/**
 * `clients` loops, each sending one request after another until `stop()` is true: a creation with an
 * email and a phone (three rows in one statement), then a PATCH or a DELETE of a contact it
 * created earlier, and a list. Network errors are recorded as status 0 (the server must never
 * drop a connection: they fail the checks).
 */
export async function drive(c: Client, clients: number, stop: () => boolean): Promise<Answer[]> {
  const answers: Answer[] = [];
  const record = async (a: Omit<Answer, 'status' | 'retryAfter'>, send: () => Promise<{ status: number; headers: Headers; body: any }>) => {
    try {
      const r = await send();
      answers.push({
        ...a,
        status: r.status,
        retryAfter: r.headers.get('retry-after'),
        ...(a.op === 'create' && r.status === 201 ? { id: r.body.id } : {}),
      });
      return r;
    } catch {
      answers.push({ ...a, status: 0, retryAfter: null });
      return undefined;
    }
  };
  await Promise.all(
    Array.from({ length: clients }, async (_, n) => {
      const mine: string[] = [];
      for (let i = 0; !stop(); i++) {
        const marker = `F${n}x${i}x${randomBytes(3).toString('hex')}`;
        const made = await record({ op: 'create', marker }, () =>
          c.post('/v1/contacts', {
            first_name: 'Fault',
            last_name: marker,
            email: `${marker.toLowerCase()}@example.com`,
            phone: '+1 555 010 2030',
          }),
        );
        if (made?.status === 201) mine.push(made.body.id);
        const id = mine[Math.floor(mine.length / 2)];
        if (id && i % 3 === 2) {
          mine.splice(mine.indexOf(id), 1);
          await record({ op: 'delete', id }, () => c.del(`/v1/contacts/${id}`));
        } else if (id) {
          const title = `T${marker}`;
          await record({ op: 'patch', id, title }, () => c.patch(`/v1/contacts/${id}`, { job_title: title }));
        }
        await record({ op: 'list' }, () => c.get('/v1/contacts?limit=5'));
      }
    }),
  );
  return answers;
}

/**
 * Checks the answers against the database: every answer a success or a 503 with Retry-After (no
 * 500, no dropped connection); every acknowledged creation there whole (its email and phone rows),
 * every refused one absent; a deletion's contact gone when acknowledged and there when refused
 * (a contact is deleted once at most); the last acknowledged PATCH of each contact the title it holds, and
 * a refused PATCH's title nowhere. `schema` is the server's search path on `url`. `unknown`: the
 * answers whose outcome nobody knows (a balancer's 502 for a request its server died in), allowed
 * and checked for nothing but that the contact is whole: such a write may or may not have happened.
 */
export async function checkAnswers(
  answers: Answer[],
  url: string,
  schema?: string,
  unknown: (a: Answer) => boolean = () => false,
): Promise<void> {
  const bad = answers.filter((a) => !(a.status === 200 || a.status === 201 || (a.status === 503 && a.retryAfter === '1') || unknown(a)));
  expect(bad, 'every answer a success or a 503 with Retry-After').toEqual([]);
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    if (schema) await db.query(`SET search_path = "${schema}", public`);
    const { rows } = await db.query<{ id: string; last_name: string; job_title: string | null; emails: number; phones: number }>(
      `SELECT c.id, c.last_name, c.job_title,
              (SELECT count(*) FROM contact_emails e WHERE e.contact_id = c.id)::int AS emails,
              (SELECT count(*) FROM contact_phones p WHERE p.contact_id = c.id)::int AS phones
         FROM contacts c WHERE c.first_name = 'Fault'`,
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    const markers = new Set(rows.map((r) => r.last_name));
    expect(
      rows.filter((r) => r.emails !== 1 || r.phones !== 1),
      'no contact without its email and phone',
    ).toEqual([]);
    // Deleted, or perhaps deleted: an acknowledged creation may be gone through either.
    const deleted = new Set(answers.filter((a) => a.op === 'delete' && (a.status === 200 || unknown(a))).map((a) => a.id));
    for (const a of answers) {
      if (a.op === 'create' && a.status === 201)
        expect(byId.has(a.id!) || deleted.has(a.id!), `acknowledged creation ${a.marker} kept`).toBe(true);
      if (a.op === 'create' && a.status === 503) expect(markers.has(a.marker!), `refused creation ${a.marker} absent`).toBe(false);
      if (a.op === 'delete' && a.status === 200) expect(byId.has(a.id!), `acknowledged deletion of ${a.id} done`).toBe(false);
      if (a.op === 'delete' && a.status === 503) expect(byId.has(a.id!), `refused deletion of ${a.id} not done`).toBe(true);
      if (a.op === 'patch' && a.status === 503)
        expect(
          rows.some((r) => r.job_title === a.title),
          `refused PATCH ${a.title} not applied`,
        ).toBe(false);
    }
    // Each contact's last acknowledged title, or one an unknown PATCH after it may have set.
    const titles = new Map<string, string[]>();
    for (const a of answers) {
      if (a.op === 'patch' && a.status === 200) titles.set(a.id!, [a.title!]);
      else if (a.op === 'patch' && unknown(a)) titles.get(a.id!)?.push(a.title!);
    }
    for (const [id, allowed] of titles) if (byId.has(id)) expect(allowed, `acknowledged PATCH of ${id}`).toContain(byId.get(id)!.job_title);
  } finally {
    await db.end();
  }
}

/** Waits until the server's /readyz answers 200 (the database back and answering), or fails after `ms`. */
export async function untilReady(base: string, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const r = await fetch(`${base}/readyz`).catch(() => undefined);
    if (r?.status === 200) return;
    if (Date.now() > until) throw new Error(`${base}/readyz not 200 within ${ms / 1000} s (last: ${r?.status ?? 'no answer'})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
