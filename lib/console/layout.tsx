import type { ComponentChildren } from 'preact';
import { accentStylesheet, type Branding, logoOrigin } from '../hosted/branding';
import type { Language, Translate } from './i18n';
import { LANGUAGES } from './i18n';
import { actionPath, LANGUAGE_SECTION } from './paths';
import type { AreaId } from './section';
import { CONSOLE_STYLESHEET } from './stylesheet';

/*
 * The frame of the account page and the tenant console (docs/api.md 15.1): the tenant's
 * branding at the top, a skip link, the sections' navigation with the current one marked,
 * the message of the last action (`role="status"`), the page, the language switch.
 * Everything goes through preact, which escapes text and attributes.
 */

export interface NavItem {
  href: string;
  label: string;
  current: boolean;
}

export interface LayoutProps {
  t: Translate;
  language: Language;
  branding: Branding;
  title: string;
  /** The area's name, after the page's title in `<title>`. */
  areaTitle: string;
  nav?: NavItem[] | undefined;
  /** The signed-in user and what the language switch needs; none on an error page without a session. */
  signedIn?: { username: string; csrf: string; area: AreaId; returnTo: string } | undefined;
  flash?: string | undefined;
  scripts?: readonly string[] | undefined;
  children: ComponentChildren;
}

/** The switch to each other language: a form, so it works without JavaScript. */
function LanguageSwitch({
  t,
  language,
  signedIn,
}: Pick<LayoutProps, 't' | 'language'> & { signedIn: NonNullable<LayoutProps['signedIn']> }) {
  return (
    <form method="post" action={actionPath(signedIn.area, LANGUAGE_SECTION, 'set')} class="lang" aria-label={t('console:language')}>
      <input type="hidden" name="csrf" value={signedIn.csrf} />
      <input type="hidden" name="returnTo" value={signedIn.returnTo} />
      {LANGUAGES.filter((other) => other !== language).map((other) => (
        <button type="submit" name="language" value={other} class="secondary" lang={other}>
          {t(`console:languageName.${other}`)}
        </button>
      ))}
    </form>
  );
}

export function ConsoleLayout({ t, language, branding, title, areaTitle, nav, signedIn, flash, scripts, children }: LayoutProps) {
  const accent = accentStylesheet(branding.accentColor);
  const logo = logoOrigin(branding.logoUrl) === undefined ? undefined : branding.logoUrl;
  return (
    <html lang={language}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${title} – ${areaTitle} – ${branding.name}`}</title>
        <style>{CONSOLE_STYLESHEET}</style>
        {accent === undefined ? null : <style>{accent}</style>}
      </head>
      <body>
        <a class="skip" href="#main">
          {t('console:skipLink')}
        </a>
        <header class="brand">
          {logo === undefined ? null : <img src={logo} alt={t('console:logoAlt', { name: branding.name })} />}
          <p class="name">{branding.name}</p>
          {signedIn ? (
            <p class="who">
              {t('console:signedInAs', { username: signedIn.username })} · <a href="/oauth2/logout">{t('console:signOut')}</a>
            </p>
          ) : null}
        </header>
        <div class="shell">
          {nav?.length ? (
            <nav aria-label={t('console:sections')}>
              <ul>
                {nav.map((item) => (
                  <li>
                    <a href={item.href} aria-current={item.current ? 'page' : undefined}>
                      {item.label}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
          ) : null}
          <main id="main" tabIndex={-1}>
            <h1>{title}</h1>
            <div class="flash" role="status">
              {flash ?? ''}
            </div>
            {children}
          </main>
          {signedIn ? <LanguageSwitch t={t} language={language} signedIn={signedIn} /> : null}
        </div>
        {(scripts ?? []).map((script) => (
          <script dangerouslySetInnerHTML={{ __html: script }} />
        ))}
      </body>
    </html>
  );
}
