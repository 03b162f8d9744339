import * as z from 'zod';

/** The path of the routes on one user (docs/api.md 9): user ids are UUIDs. */
export const userPath = z.strictObject({ userId: z.uuid() });
