import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { VNode } from 'preact';
import type { Deps } from '../deps';
import { AppError, ForbiddenError, NotFoundError, ValidationError } from '../errors';
import { tenantBranding } from '../hosted/branding';
import { browserRedirect } from '../hosted/http';
import { browserForForm, browserForPage, isPagePath, type SignedInBrowser } from '../hosted/page-session';
import type { Reply } from '../http/reply';
import { identityOf } from '../sessions/sessions';
import type { User } from '../users/user';
import * as z from '../zod';
import { flashCookie, flashOf, shownFlashCookie } from './flash';
import { domainFieldErrors, fieldErrors, ProblemSummary } from './form';
import { consolePage } from './http';
import { translator } from './i18n';
import { isLanguage, languageCookie, languageOf } from './language';
import { ConsoleLayout } from './layout';
import { homePath, LANGUAGE_SECTION, SEGMENT, sectionPath } from './paths';
import type { ActionOutcome, AreaId, FormState, PageContext, Section, SectionView } from './section';

/*
 * The frame of the account page and the tenant console (docs/api.md 15.1): one function
 * shows any section of an area (GET), one runs any action of it (POST), each with the
 * sections of its registry. Every POST ends in a 303 back to its section with a message
 * shown once, the form again with its problems (400), or a page of its own (a secret shown
 * once).
 */

/** An area of pages: its sections (lib/console/<area>/registry.ts) and who may see them. */
export interface Area {
  id: AreaId;
  /** The message key of its name. */
  title: string;
  sections: readonly Section[];
  /** Whether the signed-in user may see the area: refused with the 403 page otherwise. */
  allows(user: User): boolean;
}

/** The field names a form never gets back: what a person would not want shown again. */
const SECRET_FIELD = /password|code|secret|credential|csrf/i;

const sorted = (area: Area) => [...area.sections].sort((a, b) => a.order - b.order);

function findSection(area: Area, id: string | undefined): Section {
  const section = id === undefined ? sorted(area)[0] : SEGMENT.test(id) ? area.sections.find((s) => s.id === id) : undefined;
  if (!section) throw new NotFoundError();
  return section;
}

function contextOf(deps: Deps, event: APIGatewayProxyEventV2, area: Area, signedIn: SignedInBrowser, branding: PageContext['branding']) {
  const language = languageOf(event);
  const query = event.requestContext?.http?.method === 'GET' ? (event.queryStringParameters ?? {}) : {};
  return {
    deps,
    event,
    area: area.id,
    signedIn,
    identity: identityOf(signedIn.user, signedIn.session),
    language,
    t: translator(language),
    branding,
    query,
  } satisfies PageContext;
}

async function signedInContext(deps: Deps, event: APIGatewayProxyEventV2, area: Area, signedIn: SignedInBrowser): Promise<PageContext> {
  if (!area.allows(signedIn.user)) throw new ForbiddenError();
  return contextOf(deps, event, area, signedIn, await tenantBranding(deps, signedIn.user.tenantId));
}

const asView = (rendered: VNode | SectionView): SectionView => ('content' in rendered ? rendered : { content: rendered });

/** The page's own URL, for the language switch to come back to. */
const pageUrl = (event: APIGatewayProxyEventV2) => `${event.rawPath}${event.rawQueryString ? `?${event.rawQueryString}` : ''}`;

interface Framed {
  status: number;
  title: string;
  content: VNode;
  scripts?: readonly string[] | undefined;
  flash?: string | undefined;
  cookies?: string[] | undefined;
  headers?: Record<string, string> | undefined;
  returnTo: string;
}

/** A section's content in the frame: the navigation of the area with the section marked. */
function framed(context: PageContext, area: Area, section: Section, page: Framed): Reply {
  const { t, language, branding, signedIn } = context;
  const nav = sorted(area).map((item) => ({ href: sectionPath(area.id, item.id), label: t(item.title), current: item.id === section.id }));
  return consolePage(
    page.status,
    (scripts) => (
      <ConsoleLayout
        t={t}
        language={language}
        branding={branding}
        title={page.title}
        areaTitle={t(area.title)}
        nav={nav}
        signedIn={{ username: signedIn.user.username, csrf: signedIn.csrf, area: area.id, returnTo: page.returnTo }}
        flash={page.flash}
        scripts={scripts}
      >
        {page.content}
      </ConsoleLayout>
    ),
    { branding, scripts: page.scripts, cookies: page.cookies, headers: page.headers },
  );
}

/** A section's page, its form `form` come back with problems when given. */
async function sectionPage(
  context: PageContext,
  area: Area,
  section: Section,
  status: number,
  form?: FormState,
  extra: Partial<Framed> = {},
) {
  const view = asView(await section.render(context, form));
  const returnTo = extra.returnTo ?? sectionPath(area.id, section.id);
  const content = (
    <>
      <ProblemSummary problem={form?.problem} t={context.t} />
      {view.content}
    </>
  );
  return framed(context, area, section, { status, title: context.t(section.title), ...view, content, ...extra, returnTo });
}

/**
 * GET of a page (docs/api.md 15.1): the section named by the path (the area's first without
 * one), of a signed-in browser (else the tenant's hosted sign-in first, back to this URL),
 * whose user the area allows (else 403), with the message of the last action once.
 */
export async function showSection(deps: Deps, event: APIGatewayProxyEventV2, area: Area, sectionId: string | undefined): Promise<Reply> {
  const section = findSection(area, sectionId);
  const browser = await browserForPage(deps, event, pageUrl(event));
  if ('reply' in browser) return browser.reply;
  const context = await signedInContext(deps, event, area, browser.signedIn);
  const flash = flashOf(event);
  return sectionPage(context, area, section, 200, undefined, {
    returnTo: pageUrl(event),
    ...(flash ? { flash: context.t(flash.key, flash.values), cookies: [shownFlashCookie()] } : {}),
  });
}

/** A page's form: strings by name (lib/http/middlewares/page-form.ts refuses a field given twice). */
export const pageFormBody = z.record(z.string().check(z.maxLength(100)), z.string().check(z.maxLength(8192)));

const languageForm = z.object({ language: z.string(), returnTo: z.string().check(z.maxLength(2048)) });

/** The language switch (docs/api.md 15.1): the choice in a cookie, back to the page it was on. */
function switchLanguage(area: Area, fields: Record<string, string>): Reply {
  const parsed = languageForm.safeParse(fields);
  if (!parsed.success || !isLanguage(parsed.data.language)) throw new NotFoundError();
  const { returnTo } = parsed.data;
  const back = isPagePath(returnTo) && returnTo.startsWith(homePath(area.id)) ? returnTo : homePath(area.id);
  return browserRedirect(back, { afterForm: true, cookies: [languageCookie(parsed.data.language)] });
}

/** The refusals that end on the error page: a session, a page or a user gone. */
const PAGE_REFUSALS: readonly string[] = ['SIGN_IN_AGAIN', 'UNAUTHORIZED', 'PAGE_EXPIRED', 'CROSS_SITE_REQUEST'];

/** Whether a refusal of an action shows the form again (a wrong password, a code, a conflict), else the error page. */
const showsForm = (error: unknown): error is AppError =>
  error instanceof AppError && error.statusCode < 500 && !PAGE_REFUSALS.includes(error.code);

async function outcomeReply(context: PageContext, area: Area, section: Section, outcome: ActionOutcome): Promise<Reply> {
  if ('page' in outcome)
    return framed(context, area, section, {
      status: 200,
      title: context.t(section.title),
      content: outcome.page,
      scripts: outcome.scripts,
      returnTo: sectionPath(area.id, section.id),
    });
  const query = outcome.query ? `?${new URLSearchParams(outcome.query).toString()}` : '';
  return browserRedirect(`${sectionPath(area.id, section.id)}${query}`, {
    afterForm: true,
    cookies: [flashCookie({ key: outcome.flash, ...(outcome.values ? { values: outcome.values } : {}) })],
  });
}

/**
 * POST of a page's form (docs/api.md 15.1): from our origin, of a live session, with its
 * CSRF token (lib/hosted/page-session.tsx), of a user the area allows; then the action's
 * form is parsed as strictly as its JSON twin (problems: the section again, 400, the
 * values kept but secrets) and the action runs; a refusal of the domain shows the form
 * again with the refusal's status and message.
 */
export async function runAction(
  deps: Deps,
  event: APIGatewayProxyEventV2,
  area: Area,
  path: { section: string; action: string },
  fields: Record<string, string>,
): Promise<Reply> {
  const { csrf = '', ...input } = fields;
  const signedIn = await browserForForm(deps, event, csrf);
  const context = await signedInContext(deps, event, area, signedIn);
  if (path.section === LANGUAGE_SECTION && path.action === 'set') return switchLanguage(area, input);
  const section = findSection(area, path.section);
  const action = SEGMENT.test(path.action) ? section.actions[path.action] : undefined;
  if (!action) throw new NotFoundError();
  const keep = (name: string) => !SECRET_FIELD.test(name) && !action.secretFields?.includes(name);
  const values = Object.fromEntries(Object.entries(input).filter(([name]) => keep(name)));
  const parsed = action.form.safeParse(input);
  if (!parsed.success)
    return sectionPage(context, area, section, 400, { action: path.action, values, errors: fieldErrors(parsed.error.issues, context.t) });
  try {
    return await outcomeReply(context, area, section, await action.run(context, parsed.data));
  } catch (error) {
    if (!showsForm(error)) throw error;
    const errors = domainFieldErrors(error instanceof ValidationError ? error.fields : undefined, context.t);
    const problem = context.t(`errors:${error.code}`, { defaultValue: error.message });
    return sectionPage(
      context,
      area,
      section,
      error.statusCode,
      { action: path.action, values, errors, problem },
      { headers: error.headers },
    );
  }
}
