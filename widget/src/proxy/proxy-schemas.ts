import { z } from 'zod';

/** Request bodies the proxy accepts from shoppers' browsers; bounds as the billing API's. */
const text = (max: number) => z.string().trim().min(1, 'required').max(max, `at most ${max} characters`);

export const ShopperDetailsBody = z.object({
  firstName: text(50),
  lastName: text(50),
  email: z.email('must be an e-mail address').max(255),
  address: z.object({
    line1: text(60),
    line2: z.string().trim().max(60).optional(),
    city: text(50),
    postalZip: text(10),
    country: z.string().regex(/^[A-Za-z]{2}$/, 'must be a 2-letter ISO 3166 country code'),
    state: z.string().regex(/^[A-Za-z]{2}-[A-Za-z0-9]{1,3}$/, 'must be an ISO 3166-2 code such as US-NY').optional(),
  }),
});

export const SubscriptionBody = z.object({ planFrequencyId: z.number().int().positive() });

export const CustomerParams = z.object({ customerId: z.coerce.number().int().positive().max(2 ** 31 - 1) });
