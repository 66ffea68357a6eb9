import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/database.js';

/**
 * The database for the console's stale-tolerant reads (lists, revenue, exports): the read standby while it is
 * current (db/read-database.ts), else the primary. Never for a read that must see a write just made.
 */
export const staleReadDb = (ctx: AppContext): Db => ctx.reads?.db() ?? ctx.db;
