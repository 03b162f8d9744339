/** The common-password list's text, as lib/users/common-passwords.txt holds it. */
export function commonPasswordText(): string;
