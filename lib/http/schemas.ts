import * as z from 'zod';

/**
 * Field rules shared by several operations. Lengths beyond the seed's minimums are
 * upper bounds that keep keys and hashing cost bounded (README, deviations).
 */
export const username = z.string().min(1).max(128);
export const tenantId = z.string().min(1).max(128);
export const shopId = z.string().min(1).max(128);
