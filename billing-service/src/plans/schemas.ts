import { z } from 'zod';

export const PlanIdParams = z.object({ planId: z.coerce.number().int().positive() });

export const PlanFrequencyIdParams = z.object({ planFrequencyId: z.coerce.number().int().positive() });
export const PlanFrequencyAmountParams = PlanFrequencyIdParams.extend({ amountId: z.coerce.number().int().positive() });

export const AmountObject = z.object({ amount: z.number(), currency: z.string(), id: z.number(), uri: z.string() });
export type AmountObject = z.infer<typeof AmountObject>;

export const PlanFrequencyResponse = z.object({
  planRevisionId: z.number(),
  numberOfIntervals: z.number(),
  interval: z.enum(['Monthly', 'Yearly']),
  numberOfSubscriptions: z.number(),
  status: z.string(),
  setupFees: z.array(AmountObject),
  charges: z.array(AmountObject),
  isProrated: z.boolean(),
  prorationGranularity: z.string(),
  planFrequencyUniqueId: z.number(),
  remainingInterval: z.number().nullable(),
  id: z.number(),
  uri: z.string(),
});
export type PlanFrequencyResponse = z.infer<typeof PlanFrequencyResponse>;

export const PlanResponse = z.object({
  code: z.string(),
  name: z.string(),
  reference: z.string().nullable(),
  description: z.string().nullable(),
  longdescription: z.string().nullable(),
  status: z.string(),
  modificationTimestamp: z.string(),
  planFrequencies: z.array(PlanFrequencyResponse),
  /** minQuantity and maxQuantity: present when shoppers may choose the quantity at checkout (catalogue bounds). */
  planProducts: z.array(
    z.object({
      code: z.string(),
      name: z.string(),
      description: z.string().nullable(),
      quantity: z.number(),
      minQuantity: z.number().optional(),
      maxQuantity: z.number().optional(),
    }),
  ),
  autoApplyChanges: z.boolean(),
  id: z.number(),
  uri: z.string(),
});
export type PlanResponse = z.infer<typeof PlanResponse>;
