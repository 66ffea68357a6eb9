import { z } from 'zod';

export const CreateNoteBody = z.object({
  customerId: z.number().int().positive(),
  note: z.string().min(1, 'required').max(2000, 'must be at most 2000 characters'),
  userWhoCreatedNote: z.string().max(255).nullish(),
});
export type CreateNoteInput = z.infer<typeof CreateNoteBody>;

export const NoteIdParams = z.object({ noteId: z.coerce.number().int().positive() });

export const NoteResponse = z.object({
  customerId: z.number(),
  note: z.string(),
  userWhoCreatedNote: z.string().nullable(),
  createdTimestamp: z.string(),
  id: z.number(),
  uri: z.string(),
});
export type NoteResponse = z.infer<typeof NoteResponse>;
