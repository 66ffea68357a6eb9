/** The database (`@renew/billing-service/db`): its handle and types, and queries compiled once. */
export type { Db, DatabaseHandle, Queryable } from './database.js';
export { reusableQuery } from './reusable-query.js';
export { isDatabaseUnavailable } from './connection-errors.js';
export type { CustomerRow } from './schema.js';
export { InstanceLiveness, type LivenessOptions } from './instance-liveness.js';
export { writeEventually } from './write-eventually.js';
