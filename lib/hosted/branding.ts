import type { Deps } from '../deps';

/** How a tenant's pages look (docs/api.md 9.14, 15.1): its name, and its logo and accent colour when set. */
export interface Branding {
  name: string;
  /** An https URL (docs/api.md 9.14); the page's CSP allows images of its origin only. */
  logoUrl?: string | undefined;
  /** `#rrggbb` (docs/api.md 9.14). */
  accentColor?: string | undefined;
}

/** The branding of a tenant's pages: its display name (else its id), logo and accent colour. */
export async function tenantBranding(deps: Pick<Deps, 'store'>, tenantId: string): Promise<Branding> {
  const tenant = await deps.store.tenants.find(tenantId);
  return { name: tenant?.displayName ?? tenantId, logoUrl: tenant?.logoUrl, accentColor: tenant?.accentColor };
}

/** WCAG 2.2 relative luminance of `#rrggbb`. */
function luminance(color: string): number {
  const channel = (offset: number) => {
    const value = Number.parseInt(color.slice(offset, offset + 2), 16) / 255;
    return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** WCAG 2.2 contrast ratio of two luminances. */
const contrast = (a: number, b: number) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);

/**
 * The stylesheet of a tenant's accent colour, or undefined for none: the colour fills the
 * page's top bar and its main buttons, whose text is black or white, whichever contrasts
 * more with it. One of the two always reaches WCAG's 4.5:1, so no accent makes text
 * unreadable. Allowed by its hash in the page's CSP; the colour was validated as `#rrggbb`
 * when set, and is checked again here, since it goes into CSS.
 */
export function accentStylesheet(accentColor: string | undefined): string | undefined {
  if (accentColor === undefined || !ACCENT_COLOR.test(accentColor)) return undefined;
  const own = luminance(accentColor);
  const text = contrast(own, 0) >= contrast(own, 1) ? '#000000' : '#ffffff';
  return `:root{--accent:${accentColor.toLowerCase()};--on-accent:${text}}`;
}

/** An accent colour as the tenant settings take it (docs/api.md 9.14). */
export const ACCENT_COLOR = /^#[0-9a-fA-F]{6}$/;

/** The origin images may come from on a tenant's pages: its logo's, if it is https. */
export function logoOrigin(logoUrl: string | undefined): string | undefined {
  if (logoUrl === undefined) return undefined;
  try {
    const url = new URL(logoUrl);
    return url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}
