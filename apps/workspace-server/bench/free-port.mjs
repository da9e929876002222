// A TCP port free on loopback at the moment (the kernel's pick), for a program that takes its port
// in its configuration or as an option: PostgreSQL, PgBouncer, HAProxy and the servers behind it,
// in the benches and the tests alike.
import { createServer } from 'node:net';

/** @returns {Promise<number>} */
export async function freePort() {
  const s = createServer();
  await new Promise((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address();
  await new Promise((resolve) => s.close(resolve));
  return port;
}
