/*
 * The English messages of the frame and the account page (docs/api.md 15.1), one namespace
 * per area. A section of another area keeps its own catalogue file beside this one
 * (`<area>.en.ts` and `<area>.de.ts`), registered in lib/console/messages/index.ts.
 * Values use i18next's `{{name}}` interpolation; German (de.ts) has every key with the
 * same variables (test/lib/console/messages.test.ts).
 */
export const en = {
  console: {
    skipLink: 'Skip to content',
    sections: 'Sections',
    adminTitle: 'Tenant console',
    accountTitle: 'Your account',
    signedInAs: 'Signed in as {{username}}',
    signOut: 'Sign out',
    language: 'Language',
    languageName: { en: 'English', de: 'Deutsch' },
    switchLanguage: 'Switch to {{language}}',
    languageChanged: 'Language changed.',
    logoAlt: '{{name}} logo',
    problemSummary: 'There is a problem',
    problemCount_one: 'Fix the field below.',
    problemCount_other: 'Fix the {{count}} fields below.',
    copy: 'Copy',
    copied: 'Copied.',
    confirm: 'Are you sure?',
    none: 'None',
    yes: 'Yes',
    no: 'No',
    continue: 'Continue',
    cancel: 'Cancel',
    save: 'Save',
  },
  form: {
    required: 'Enter a value.',
    tooShort: 'Enter at least {{min}} characters.',
    tooLong: 'Enter at most {{max}} characters.',
    invalid: 'Enter a valid value.',
    invalidChoice: 'Choose one of the options.',
    invalidEmail: 'Enter an email address like name@example.com.',
    invalidUrl: 'Enter an address starting with https://.',
    invalidColour: 'Enter a colour like #1d4ed8.',
    invalidCode: 'Enter the code of 6 digits.',
  },
  errorPage: {
    title: 'Something went wrong',
    signInAgainTitle: 'Sign in again',
    signInAgain: 'Your session has ended. Sign in again to continue.',
    signInAgainLink: 'Sign in again',
    expiredTitle: 'This page expired',
    expired: 'This page expired. Load it again and repeat what you did.',
    expiredLink: 'Load the page again',
    forbiddenTitle: 'Not allowed',
    forbidden: 'You are not allowed to see this page.',
    crossSite: 'This form was sent from another site and was refused. Nothing was changed.',
    notFoundTitle: 'Not found',
    notFound: 'There is no such page.',
    backHome: 'Back to the start page',
    unexpected: 'Something went wrong on our side. Nothing was changed. Try again in a moment.',
  },
  errors: {
    VALIDATION_FAILED: 'Some of the values are not valid.',
    INVALID_FORM: 'The form could not be read.',
    PERMISSION_DENIED: 'You are not allowed to do this.',
    NOT_FOUND: 'Not found.',
    RATE_LIMITED: 'Too many requests. Wait a moment and try again.',
    LOCKED: 'Too many failed attempts. Wait and try again later.',
  },
  accountProfile: {
    title: 'Profile',
    username: 'Username',
    email: 'Email address',
    noEmail: 'No email address yet',
    verified: 'Verified',
    notVerified: 'Not verified',
    role: 'Role',
  },
  adminOverview: {
    title: 'Overview',
    intro: 'The settings and people of {{tenant}}.',
    tenantId: 'Tenant ID',
    displayName: 'Display name',
    created: 'Created',
    defaultShop: 'Default shop',
    logo: 'Logo',
    accentColour: 'Accent colour',
    notSet: 'Not set',
  },
};

/** The shape every language's catalogue of this file has. */
export type CoreMessages = typeof en;
