import * as z from 'zod';

/**
 * Field rules shared by several operations. Lengths beyond the seed's minimums are
 * upper bounds that keep keys and hashing cost bounded (README, deviations).
 */
export const username = z.string().min(1).max(128);
export const tenantId = z.string().min(1).max(128);
export const shopId = z.string().min(1).max(128);
/** An email address, trimmed and lower-cased before it is bounded and checked (docs/api.md 8.8). */
export const emailAddress = z.string().max(1024).trim().toLowerCase().max(254).pipe(z.email());
