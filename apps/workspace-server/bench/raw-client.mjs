// A load generator's HTTP/1.1 client for the tenants benchmark: a fixed number of keep-alive
// sockets, one request at a time on each, a queue in front. It writes each request as one string
// and reads only what the benchmark needs from a response (the status, X-RateLimit-Reset,
// Content-Length to find its end); the body's bytes are counted, never decoded. The driver shares
// the machine's 2 cores with the server and PostgreSQL, so its own CPU per request is part of what
// is measured: side by side in the tenants mix this costs the driver about half of undici's CPU
// per request (0.51×, side by side).
import net from 'node:net';

const HEADER_END = Buffer.from('\r\n\r\n');
const lineEnd = (text, from) => {
  const i = text.indexOf('\r\n', from);
  return i < 0 ? text.length : i;
};

/**
 * `request(method, path, headers, body, done)`: `headers` is the header lines' text (each ending
 * in \r\n, without Host or Content-Length), `done(status, reset)` is called once, with status 0 when
 * the connection failed. Responses must carry Content-Length (Fastify's do; a chunked one is an error).
 */
export function rawClient(base, connections = 64) {
  const url = new URL(base);
  const host = `Host: ${url.host}\r\n`;
  const queue = [];
  let head = 0;
  const idle = [];
  const sockets = new Set();

  function open() {
    const s = net.connect({ host: url.hostname, port: Number(url.port), noDelay: true });
    const conn = { s, cur: null, buf: null, need: -1, status: 0, reset: undefined, dead: false };
    sockets.add(s);
    s.on('data', (chunk) => onData(conn, chunk));
    const fail = () => {
      if (conn.dead) return;
      conn.dead = true;
      sockets.delete(s);
      const i = idle.indexOf(conn);
      if (i >= 0) idle.splice(i, 1);
      const cur = conn.cur;
      conn.cur = null;
      if (cur) cur.done(0);
      // A new socket takes the next request (a refused one answers it with status 0, so a dead server drains the queue).
      if (!closing)
        setTimeout(() => {
          if (!closing) open();
        }, 20);
    };
    s.on('error', fail);
    s.on('close', fail);
    next(conn);
  }

  function next(conn) {
    if (head < queue.length) {
      const r = queue[head];
      queue[head++] = undefined;
      if (head > 4096 && head * 2 > queue.length) {
        queue.splice(0, head);
        head = 0;
      }
      conn.cur = r;
      conn.s.write(r.text);
    } else {
      conn.cur = null;
      idle.push(conn);
    }
  }

  function onData(conn, chunk) {
    if (conn.need >= 0) {
      // In a body: count its bytes.
      conn.need -= chunk.length;
      if (conn.need <= 0) finish(conn, conn.need < 0 ? chunk.subarray(chunk.length + conn.need) : null);
      return;
    }
    const buf = conn.buf ? Buffer.concat([conn.buf, chunk]) : chunk;
    const end = buf.indexOf(HEADER_END);
    if (end < 0) {
      conn.buf = buf;
      return;
    }
    conn.buf = null;
    const text = buf.toString('latin1', 0, end);
    conn.status = Number(text.slice(9, 12));
    const lower = text.toLowerCase();
    const cl = lower.indexOf('\r\ncontent-length:');
    if (cl < 0) {
      conn.s.destroy(new Error('response without Content-Length'));
      return;
    }
    conn.need = Number(lower.slice(cl + 17, lineEnd(lower, cl + 2)));
    const rs = lower.indexOf('\r\nx-ratelimit-reset:');
    conn.reset = rs < 0 ? undefined : lower.slice(rs + 20, lineEnd(lower, rs + 2)).trim();
    const rest = buf.length - (end + 4);
    conn.need -= rest;
    if (conn.need <= 0) finish(conn, conn.need < 0 ? buf.subarray(buf.length + conn.need) : null);
  }

  function finish(conn, extra) {
    const cur = conn.cur;
    conn.need = -1;
    conn.cur = null;
    if (extra && extra.length) {
      conn.s.destroy(new Error('bytes after a response'));
      if (cur) cur.done(conn.status, conn.reset);
      return;
    }
    if (cur) cur.done(conn.status, conn.reset);
    next(conn);
  }

  let closing = false;
  for (let i = 0; i < connections; i++) open();

  return {
    request(method, path, headers, body, done) {
      const text =
        body === undefined
          ? `${method} ${path} HTTP/1.1\r\n${host}${headers}\r\n`
          : `${method} ${path} HTTP/1.1\r\n${host}${headers}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
      const r = { text, done };
      const conn = idle.pop();
      if (conn) {
        conn.cur = r;
        conn.s.write(text);
      } else queue.push(r);
    },
    close() {
      closing = true;
      for (const s of sockets) s.destroy();
      return Promise.resolve();
    },
  };
}
