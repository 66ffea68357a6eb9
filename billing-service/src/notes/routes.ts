import { NO_CONTENT_AFTER_COMMIT, readBack } from '../http/idempotency.js';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'kysely';
import { z } from 'zod';
import { customerChildListRoute } from '../customers/child-list.js';
import type { ListField } from '../http/lists/index.js';
import { selectNotes } from './repository.js';
import { CreateNoteBody, NoteIdParams, NoteResponse } from './schemas.js';
import { addCustomerNote, deleteCustomerNote, getCustomerNote, toNoteResponse } from './service.js';

const tags = ['Customer notes'];
const noteListFields: ListField[] = [
  { name: 'Note', type: 'string', expression: sql.ref('customerNotes.note') },
  { name: 'UserWhoCreatedNote', type: 'string', expression: sql.ref('customerNotes.userWhoCreatedNote') },
  { name: 'CreatedTimestamp', type: 'date', expression: sql.ref('customerNotes.createdAt') },
  { name: 'Id', type: 'integer', expression: sql.ref('customerNotes.id') },
];

export async function noteRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.post('/v1/customernotes', {
    schema: { tags, summary: 'Add a note to a customer', body: CreateNoteBody, response: { 200: NoteResponse } },
    config: { idempotency: readBack((r, created) => getCustomerNote(app.ctx, r.caller, created.CustomerNote?.[0] ?? 0)) },
    handler: async (request) => addCustomerNote(app.ctx, request.caller, request.body),
  });

  app.get('/v1/customerNotes/:noteId', {
    schema: { tags, summary: 'Read one note', params: NoteIdParams, response: { 200: NoteResponse } },
    handler: async (request) => getCustomerNote(app.ctx, request.caller, request.params.noteId),
  });

  const deleteSchema = { tags, summary: 'Delete a note', params: NoteIdParams, response: { 204: z.null() } };
  const deleteHandler = async (
    request: { caller: import('../http/auth.js').Caller; params: { noteId: number } },
    reply: import('fastify').FastifyReply,
  ) => {
    await deleteCustomerNote(app.ctx, request.caller, request.params.noteId);
    return reply.code(204).send();
  };
  app.delete('/v1/customerNotes/:noteId', {
    schema: deleteSchema,
    config: { idempotency: NO_CONTENT_AFTER_COMMIT },
    handler: deleteHandler,
  });
  // The form some existing clients use.
  app.delete('/v1/customerNotes/Delete/:noteId', {
    schema: { ...deleteSchema, summary: 'Delete a note (older path form)' },
    config: { idempotency: NO_CONTENT_AFTER_COMMIT },
    handler: deleteHandler,
  });

  customerChildListRoute(app, {
    path: '/v1/customers/:customerId/notes',
    tags,
    summary: "List a customer's notes",
    item: NoteResponse,
    fields: noteListFields,
    table: 'customerNotes',
    select: (ctx, accountId) => selectNotes(ctx.db, accountId),
    toResponses: (ctx, rows) => rows.map((row) => toNoteResponse(row, ctx.uris)),
  });
}
