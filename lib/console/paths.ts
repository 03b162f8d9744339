import type { AreaId } from './section';

/*
 * The paths of the pages (docs/api.md 15.1). The account page: `GET /account`,
 * `GET /account/{section}`, `POST /account/{section}/{action}`. The tenant console:
 * `GET /admin`, `GET /admin/console/{section}`, `POST /admin/console/{section}/{action}`,
 * under a prefix of its own so that no page can collide with a JSON route of /admin.
 */

const BASE: Record<AreaId, string> = { account: '/account', admin: '/admin/console' };
const HOME: Record<AreaId, string> = { account: '/account', admin: '/admin' };

/** The start page of an area. */
export const homePath = (area: AreaId) => HOME[area];

/** The page of a section. */
export const sectionPath = (area: AreaId, section: string) => `${BASE[area]}/${section}`;

/** Where an action's form posts. */
export const actionPath = (area: AreaId, section: string, action: string) => `${BASE[area]}/${section}/${action}`;

/** A section or action segment of a path. */
export const SEGMENT = /^[a-z][a-z0-9-]{0,39}$/;

/** The segment the frame keeps for the language switch (`POST .../language/set`). */
export const LANGUAGE_SECTION = 'language';
