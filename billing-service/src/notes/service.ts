import { Refusal } from '../refusals/refusal.js';
import { recordChange } from '../audit/audit-log.js';
import { customerExists } from '../customers/repository.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../app-context.js';
import type { UriBuilder } from '../uri-builder.js';
import { deleteNote, findNote, insertNote, type NoteRow } from './repository.js';
import type { CreateNoteInput, NoteResponse } from './schemas.js';

export function toNoteResponse(row: NoteRow, uris: UriBuilder): NoteResponse {
  return {
    customerId: row.customerId,
    note: row.note,
    userWhoCreatedNote: row.userWhoCreatedNote,
    createdTimestamp: row.createdAt.toISOString(),
    id: row.id,
    uri: uris.resource('customerNotes', row.id),
  };
}

export async function getCustomerNote(ctx: AppContext, caller: Caller, noteId: number): Promise<NoteResponse> {
  const row = await findNote(ctx.db, caller.accountId, noteId);
  if (!row) throw Refusal.notFound('note', noteId);
  return toNoteResponse(row, ctx.uris);
}

export async function addCustomerNote(ctx: AppContext, caller: Caller, input: CreateNoteInput): Promise<NoteResponse> {
  const row = await ctx.db.transaction().execute(async (trx) => {
    if (!(await customerExists(trx, caller.accountId, input.customerId))) throw Refusal.notFound('customer', input.customerId);
    const note = await insertNote(trx, {
      accountId: caller.accountId,
      customerId: input.customerId,
      note: input.note,
      // Who wrote it: the name the client gives, else the audit source of the call.
      userWhoCreatedNote: input.userWhoCreatedNote ?? caller.auditSource,
    });
    await recordChange(trx, caller, {
      entityType: 'CustomerNote',
      entityId: note.id,
      action: 'create',
      changes: { customerId: input.customerId, note: input.note },
    });
    return note;
  });
  return toNoteResponse(row, ctx.uris);
}

export async function deleteCustomerNote(ctx: AppContext, caller: Caller, noteId: number): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const deleted = await deleteNote(trx, caller.accountId, noteId);
    if (!deleted) throw Refusal.notFound('note', noteId);
    await recordChange(trx, caller, {
      entityType: 'CustomerNote',
      entityId: noteId,
      action: 'delete',
      changes: { customerId: deleted.customerId, note: deleted.note },
    });
  });
}
