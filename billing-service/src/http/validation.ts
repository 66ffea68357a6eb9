import type { FastifySchemaCompiler } from 'fastify';
import type { z } from 'zod';
import { ApiError, fieldKey } from './errors.js';

/**
 * Validates params, query and body with their zod schemas. A failure becomes an
 * ApiError listing every problem keyed by its field path, so the error handler
 * needs no special case for it.
 */
export const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema }) => (data) => {
  const result = schema.safeParse(data);
  if (result.success) return { value: result.data };
  return { error: validationError(result.error.issues) };
};

export function validationError(issues: z.core.$ZodIssue[]): ApiError {
  const errors: Array<{ Key: string; Value: string }> = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const k of issue.keys) errors.push({ Key: fieldKey([...issue.path, k]), Value: 'is not a known field' });
    } else {
      errors.push({ Key: fieldKey(issue.path), Value: issue.message });
    }
  }
  return new ApiError(400, errors);
}

/**
 * Responses are typed by their zod schemas at compile time and documented in
 * OpenAPI from them; at run time they are plain JSON.stringify, which keeps the
 * hot path fast.
 */
export const jsonSerializerCompiler = () => (data: unknown) => JSON.stringify(data);
