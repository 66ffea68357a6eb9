import { isStorableId } from '../db/ids.js';
import type { Queryable } from '../db/database.js';

export function selectNotes(db: Queryable, accountId: number) {
  return db
    .selectFrom('customerNotes')
    .select(['id', 'customerId', 'note', 'userWhoCreatedNote', 'createdAt'])
    .where('customerNotes.accountId', '=', accountId);
}

export type NoteRow = Awaited<ReturnType<ReturnType<typeof selectNotes>['executeTakeFirstOrThrow']>>;

export async function findNote(db: Queryable, accountId: number, id: number): Promise<NoteRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return selectNotes(db, accountId).where('customerNotes.id', '=', id).executeTakeFirst();
}

export async function insertNote(
  db: Queryable,
  note: { accountId: number; customerId: number; note: string; userWhoCreatedNote: string | null },
): Promise<NoteRow> {
  return db
    .insertInto('customerNotes')
    .values(note)
    .returning(['id', 'customerId', 'note', 'userWhoCreatedNote', 'createdAt'])
    .executeTakeFirstOrThrow();
}

export async function deleteNote(db: Queryable, accountId: number, id: number): Promise<NoteRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return db
    .deleteFrom('customerNotes')
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .returning(['id', 'customerId', 'note', 'userWhoCreatedNote', 'createdAt'])
    .executeTakeFirst();
}
