import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { cookiesOf, hostCookie } from '../hosted/http';
import * as z from '../zod';
import { isMessageKey } from './i18n';

/*
 * The message shown once after an action (docs/api.md 15.1): POST, 303, GET. The POST sets
 * a short-lived cookie naming a message of the catalogues and its values; the GET that
 * shows it removes it. It never carries a secret: a secret shown once is in the POST's own
 * answer.
 */

export const FLASH_COOKIE = '__Host-flash';
const FLASH_SECONDS = 60;

const flashSchema = z.strictObject({
  key: z.string().check(z.maxLength(100), z.refine(isMessageKey)),
  values: z.optional(z.record(z.string().check(z.maxLength(40)), z.string().check(z.maxLength(200)))),
});
export type Flash = z.output<typeof flashSchema>;

/** The Set-Cookie of a message to show once. */
export function flashCookie(flash: Flash): string {
  return hostCookie(FLASH_COOKIE, Buffer.from(JSON.stringify(flash), 'utf8').toString('base64url'), FLASH_SECONDS);
}

/** The Set-Cookie that removes a shown message. */
export const shownFlashCookie = () => hostCookie(FLASH_COOKIE, '', 0);

/** The request's message to show, if it carries one that names a message of the catalogues. */
export function flashOf(event: APIGatewayProxyEventV2): Flash | undefined {
  const value = cookiesOf(event).get(FLASH_COOKIE);
  if (!value || !/^[A-Za-z0-9_-]{1,2000}$/.test(value)) return undefined;
  try {
    const parsed = flashSchema.safeParse(JSON.parse(Buffer.from(value, 'base64url').toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
