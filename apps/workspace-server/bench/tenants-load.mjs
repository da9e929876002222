// The tenants benchmark's load (bench/tenants.mjs, bench/shapes.mjs): tenants seeded on a
// PostgreSQL schema, each driven at its rate limit from a plan of timed requests, with the CPU of
// the server, PostgreSQL's backends and the driver, the machine's idle and stolen time, the WAL and
// the backends' waits read over each drive. What is measured and why: bench/tenants.mjs.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { createApiKey, createWorkspace, openStore } from '../dist/index.js';
import { rawClient } from './raw-client.mjs';

export const GREEDY = 10;
export const PER_CONTACTS = 100;
export const LIMIT = 120;

/** A `node` child started with `args` that prints `listening on <url>`: its address, pid and stop(). */
export function start(args, env) {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const t = setInterval(() => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearInterval(t);
        resolve({
          base: m[1],
          pid: child.pid,
          stop: () =>
            new Promise((done) => {
              child.once('exit', done);
              child.kill('SIGTERM');
            }),
        });
      }
    }, 50);
    child.once('exit', (code) => {
      clearInterval(t);
      reject(new Error(`exited with ${code}`));
    });
  });
}

/** A tenant's creation's body. */
export const body = JSON.stringify({ first_name: 'Load', last_name: 'Tenant', email: 'load@example.com', company: 'Load Co' });

/**
 * The machine over a drive: the share of its cores' time idle and stolen, and the CPU per request
 * of everything besides the server, its backends and the driver (PostgreSQL's background
 * processes, the kernel's interrupts, any other process).
 */
export function machineShare(a, b, oursMs, requests) {
  const busy = b.busy - a.busy;
  const all = busy + (b.idle - a.idle) + (b.iowait - a.iowait) + (b.steal - a.steal);
  const pct = (v) => (all > 0 ? (100 * v) / all : 0);
  return {
    idle: pct(b.idle - a.idle),
    iowait: pct(b.iowait - a.iowait),
    steal: pct(b.steal - a.steal),
    other: Math.max(0, busy - oursMs) / requests,
  };
}

/**
 * The load on `pgUrl`: `tenants` tenants (plus GREEDY greedy ones) driven for `seconds`, on
 * `schema` unless a call names another.
 */
export function tenantsLoad({ pgUrl, tenants: TENANTS, seconds: SECONDS, schema }) {
  const urlOf = (s) => `${pgUrl}${pgUrl.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${s},public`)}`;
  const schemaUrl = urlOf(schema);

  /**
   * Runs `text` in schema `name` on a connection of its own: not through openStore, which would
   * migrate the schema to this build's version (side by side, the other build's schema is its own).
   */
  async function onSchema(name, text) {
    const c = new pg.Client({ connectionString: pgUrl });
    await c.connect();
    try {
      await c.query(`SET search_path = "${name}"`);
      await c.query(text);
    } finally {
      await c.end();
    }
  }

  /** The same server's `postgres` database, for the readings that are the whole cluster's. */
  const maintenanceUrl = Object.assign(new URL(pgUrl), { pathname: '/postgres' }).href;

  /**
   * PostgreSQL's WAL so far (pg_stat_wal: the whole cluster, and this benchmark is its only writer)
   * and the checkpoints it has started: a checkpoint that starts during a drive makes each page's
   * next change write the whole page to the WAL again (a full-page image), which costs the backends
   * CPU and the WAL writer bytes until most pages have been touched once.
   */
  async function walNow() {
    const c = new pg.Client({ connectionString: maintenanceUrl });
    await c.connect();
    try {
      const { rows } = await c.query(`SELECT w.wal_records::float8 AS records, w.wal_fpi::float8 AS fpi, w.wal_bytes::float8 AS bytes,
          w.wal_sync::float8 AS syncs, w.wal_sync_time AS sync_ms, current_setting('track_wal_io_timing')::bool AS timed,
          (b.checkpoints_timed + b.checkpoints_req)::float8 AS checkpoints FROM pg_stat_wal w, pg_stat_bgwriter b`);
      return rows[0];
    } finally {
      await c.end();
    }
  }

  /**
   * Samples, every 100 ms until stopped, what this database's active backends are doing
   * (pg_stat_activity's wait event, or "on CPU" when none): `stop()` gives the mean number of
   * backends per sample in each state, most first. A queue that grows while the machine has idle
   * time waits on something; this says whether PostgreSQL's backends do.
   */
  async function sampleWaits() {
    // On the server's maintenance database, so that this backend's own CPU is not counted as the
    // benchmark database's (cpuNow finds backends by the database their process title names).
    const c = new pg.Client({ connectionString: maintenanceUrl });
    await c.connect();
    const seen = new Map();
    let samples = 0;
    let busy = false;
    const t = setInterval(async () => {
      if (busy) return;
      busy = true;
      try {
        const { rows } = await c.query(
          `SELECT coalesce(wait_event_type || ':' || wait_event, 'on CPU') AS w, count(*)::int AS n FROM pg_stat_activity
            WHERE datname = $1 AND state = 'active' AND pid <> pg_backend_pid() GROUP BY 1`,
          [dbName],
        );
        samples++;
        for (const r of rows) seen.set(r.w, (seen.get(r.w) ?? 0) + r.n);
      } catch {
        /* a sample lost */
      } finally {
        busy = false;
      }
    }, 100);
    return async () => {
      clearInterval(t);
      await c.end();
      return Object.fromEntries([...seen].sort((a, b) => b[1] - a[1]).map(([w, n]) => [w, Number((n / Math.max(1, samples)).toFixed(2))]));
    };
  }

  /** Seeds `schema` through `build` (a workspace-server dist's exports: the schema its migrations make); returns the tenants' keys. */
  async function seed(build = { openStore, createWorkspace, createApiKey }, schemaName = schema) {
    const { openStore, createWorkspace, createApiKey } = build;
    const store = await openStore({ databaseUrl: pgUrl, schema: schemaName });
    const now = new Date();
    const keys = [];
    for (let i = 0; i < TENANTS + GREEDY; i++) {
      const ws = await createWorkspace(store.db, { name: `Tenant ${i}`, slug: `tenant-${i}` }, now);
      keys.push((await createApiKey(store.db, ws.id, { scopes: ['full_access'] }, now)).secret);
    }
    await store.db.query(
      `INSERT INTO contacts (id, workspace_id, first_name, last_name, company, custom_fields, search_text, created_at, updated_at)
       SELECT 'con_t' || w.n || '_' || g, w.id, 'First' || g, 'Last' || g, CASE WHEN g % 10 = 0 THEN 'Harbor Realty' ELSE 'Company ' || g END, '{}'::jsonb,
              lower('First' || g || ' Last' || g || ' ' || CASE WHEN g % 10 = 0 THEN 'Harbor Realty' ELSE 'Company ' || g END || ' user' || g || '@example.com'),
              now() - g * interval '1 minute', now() - g * interval '1 minute'
         FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM workspaces) w, generate_series(1, $1::int) g`,
      [PER_CONTACTS],
    );
    await store.db.query(
      `INSERT INTO contact_emails (id, workspace_id, contact_id, value, label, is_primary, position)
       SELECT 'em' || substr(c.id, 4), c.workspace_id, c.id, c.first_name || '@example.com', 'Home', true, 0 FROM contacts c`,
    );
    await store.db.query('ANALYZE');
    await store.close();
    return keys;
  }

  // CPU per request, from /proc (USER_HZ ticks): the server's process and its children (--workers 2),
  // PostgreSQL's backends of this database (their process titles name it), and the driver itself.
  const dbName = new URL(pgUrl).pathname.slice(1);
  const procStat = (pid) => {
    try {
      return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    } catch {
      return null;
    }
  };
  const ticksMs = (f) => (f ? (Number(f[11]) + Number(f[12])) * 10 : 0);
  function processes() {
    const all = [];
    for (const p of readdirSync('/proc')) {
      if (!/^\d+$/.test(p)) continue;
      let cmd;
      try {
        cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8');
      } catch {
        continue;
      }
      const f = procStat(p);
      if (f) all.push({ pid: Number(p), ppid: Number(f[1]), cmd, ms: ticksMs(f) });
    }
    return all;
  }
  /** CPU milliseconds so far of the server `pid` (or each of several) with its children, and of this database's backends, by pid. */
  function cpuNow(pid) {
    const pids = [pid].flat();
    const all = processes();
    const server = new Map();
    for (const p of all) if (pids.includes(p.pid) || pids.includes(p.ppid)) server.set(p.pid, p.ms);
    const pg = new Map();
    for (const p of all) if (p.cmd.startsWith('postgres') && p.cmd.includes(` ${dbName} `)) pg.set(p.pid, p.ms);
    return { server, pg };
  }
  /**
   * The whole machine's CPU time so far (/proc/stat's first line, USER_HZ ticks summed over the
   * cores): busy, idle, waiting on I/O and stolen (time the hypervisor gave this machine's virtual
   * cores to other guests: the host is shared, and this is the part of its noise that can be read).
   */
  function machineNow() {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, idle, iowait, irq, softirq, steal = 0] = f;
    return { busy: (user + nice + system + irq + softirq) * 10, idle: idle * 10, iowait: iowait * 10, steal: steal * 10 };
  }
  /** CPU spent between two readings: a process that appeared in between counts whole. */
  const spent = (a, b) => [...b].reduce((sum, [pid, ms]) => sum + ms - (a.get(pid) ?? 0), 0);

  /**
   * Drives every tenant at its rate for SECONDS; returns throughput, latency and the 429 check.
   * With several servers (`base` and `pid` arrays), each tenant's requests go to one of them, as a
   * balancer that hashes the key would send them.
   */
  async function drive(base, allKeys, tenants = TENANTS, pid, schemaName = schema) {
    // Each run starts with fresh rate-limit windows: an earlier run in the same minute would have
    // spent some of the greedy tenants' limit.
    await onSchema(schemaName, 'DELETE FROM rate_limit_windows');
    const keys = [...allKeys.slice(0, tenants), ...allKeys.slice(TENANTS)];
    const greedy = (t) => t >= tenants;
    // 64 keep-alive sockets of a minimal HTTP/1.1 client (raw-client.mjs): the driver shares the 2
    // cores with the server and PostgreSQL, and this costs it about half of undici's CPU per request
    // (0.51×, measured side by side; undici's pool had cost 0.75× node:http's agent); latency still
    // runs from each request's planned send time, whatever the queue.
    const bases = [base].flat();
    const clients = bases.map((b) => rawClient(b, 64 / bases.length));
    const auths = keys.map((k) => `authorization: Bearer ${k}\r\n`);
    const plan = [];
    keys.forEach((key, t) => {
      const rate = greedy(t) ? (2.5 * LIMIT) / SECONDS : LIMIT / 60;
      const phase = Math.random() / rate;
      for (let k = 0; phase + k / rate < SECONDS; k++) {
        const r = Math.random();
        plan.push({ at: (phase + k / rate) * 1000, t, kind: r < 0.7 ? 'read' : r < 0.95 ? 'write' : 'search' });
      }
    });
    plan.sort((a, b) => a.at - b.at);
    const results = [];
    const wal0 = await walNow();
    const stopWaits = await sampleWaits();
    const cpu0 = cpuNow(pid, dbName);
    const machine0 = machineNow();
    const driver0 = process.cpuUsage();
    const t0 = performance.now();
    let done = 0;
    await new Promise((finish) => {
      let i = 0;
      const send = (p) => {
        const path =
          p.kind === 'write'
            ? '/v1/contacts'
            : p.kind === 'search'
              ? `/v1/contacts?limit=20&q=${Math.random() < 0.5 ? 'harbor' : `user${1 + Math.floor(Math.random() * PER_CONTACTS)}@`}`
              : '/v1/contacts?limit=20';
        const write = p.kind === 'write';
        const ended = (status, reset) => {
          results.push({ t: p.t, kind: p.kind, status, at: p.at, ms: performance.now() - t0 - p.at, end: performance.now() - t0, reset });
          if (++done === plan.length) finish();
        };
        clients[p.t % clients.length].request(
          write ? 'POST' : 'GET',
          path,
          write ? `${auths[p.t]}content-type: application/json\r\n` : auths[p.t],
          write ? body : undefined,
          ended,
        );
      };
      const tick = () => {
        const now = performance.now() - t0;
        while (i < plan.length && plan[i].at <= now) send(plan[i++]);
        if (i < plan.length) setTimeout(tick, Math.max(0, Math.min(5, plan[i].at - now)));
      };
      tick();
    });
    const driver = process.cpuUsage(driver0);
    const machine1 = machineNow();
    const cpu1 = cpuNow(pid, dbName);
    for (const c of clients) await c.close();
    const waits = await stopWaits();
    const wal1 = await walNow();
    /** CPU milliseconds over the drive: the server's processes, this database's backends, the driver. */
    const ms = { server: spent(cpu0.server, cpu1.server), pg: spent(cpu0.pg, cpu1.pg), driver: (driver.user + driver.system) / 1000 };
    /** The `p` quantile of latencies sorted ascending: whole run, second half and each second alike. */
    const quantile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
    const lat = results.map((r) => r.ms).sort((a, b) => a - b);
    const q = (p) => quantile(lat, p);
    // The second half alone: a fresh process starts with empty caches and cold code, and a queue
    // built then drains only as fast as the capacity left over the offered load.
    const late = results
      .filter((r) => r.at >= (SECONDS * 1000) / 2)
      .map((r) => r.ms)
      .sort((a, b) => a - b);
    const lateQ = (p) => quantile(late, p);
    const last = Math.max(...results.map((r) => r.end));
    // Each second's p99, by planned send time: a queue that one stall built shows as a run of bad
    // seconds, a machine short of CPU throughout as every second slow.
    const perSecond = [];
    for (const r of results) (perSecond[Math.floor(r.at / 1000)] ??= []).push(r.ms);
    const secondP99 = perSecond.map((xs) =>
      xs
        ? quantile(
            xs.sort((a, b) => a - b),
            0.99,
          )
        : 0,
    );
    // Per tenant and rate-limit window (its X-RateLimit-Reset): successes never exceed the limit, and
    // a tenant is refused only once the window holds `LIMIT` successes (so never at or under its rate).
    const windows = new Map();
    for (const r of results) {
      if (!r.reset) continue;
      const k = `${r.t}:${r.reset}`;
      const w = windows.get(k) ?? { t: r.t, ok: 0, refused: 0 };
      if (r.status === 429) w.refused++;
      else if (r.status < 300) w.ok++;
      windows.set(k, w);
    }
    let wrong = 0;
    for (const w of windows.values()) if (w.ok > LIMIT || (w.refused > 0 && w.ok !== LIMIT)) wrong++;
    const at = results.filter((r) => !greedy(r.t));
    return {
      requests: results.length,
      offered: plan.length / SECONDS,
      achieved: results.length / (last / 1000),
      p50: q(0.5),
      p99: q(0.99),
      lateP50: lateQ(0.5),
      lateP99: lateQ(0.99),
      errors: results.filter((r) => r.status === 0 || r.status >= 500).length,
      refusedAtLimit: at.filter((r) => r.status === 429).length,
      refusedGreedy: results.filter((r) => greedy(r.t) && r.status === 429).length,
      greedySent: results.filter((r) => greedy(r.t)).length,
      wrongWindows: wrong,
      secondP99: secondP99.map((x) => Math.round(x)),
      cpu: { server: ms.server / results.length, pg: ms.pg / results.length, driver: ms.driver / results.length },
      wal: {
        kB: (wal1.bytes - wal0.bytes) / 1024 / results.length,
        fpi: (wal1.fpi - wal0.fpi) / results.length,
        checkpoints: wal1.checkpoints - wal0.checkpoints,
        syncs: wal1.syncs - wal0.syncs,
        syncMs: wal1.timed && wal0.timed && wal1.syncs > wal0.syncs ? (wal1.sync_ms - wal0.sync_ms) / (wal1.syncs - wal0.syncs) : undefined,
      },
      waits,
      backends: {
        cpu: waits['on CPU'] ?? 0,
        wal: Object.entries(waits)
          .filter(([w]) => /^(IO:WAL(Sync|Write)|LWLock:WALWrite)$/.test(w))
          .reduce((sum, [, n]) => sum + n, 0),
      },
      machine: machineShare(machine0, machine1, ms.server + ms.pg + ms.driver, results.length),
    };
  }

  const dropSchema = (name) => onSchema(name, `DROP SCHEMA "${name}" CASCADE`);

  return { urlOf, schemaUrl, onSchema, seed, drive, dropSchema, cpuNow, spent };
}
