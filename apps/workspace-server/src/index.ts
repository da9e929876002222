export { buildServer, type ServerOptions } from './server.js';
export { openStore, type Store, type StoreOptions } from './db/open.js';
export type { Db, Queryable } from './db/db.js';
export { migrate, migrations } from './db/migrations.js';
export { systemClock, ManualClock, type Clock } from './clock.js';
export { recordEvent } from './store/events.js';
export { seedDemo } from './seed.js';
export { scopeResources, allScopes, hasScope } from './scopes.js';
export { ApiError } from './errors.js';
