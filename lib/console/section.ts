import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { VNode } from 'preact';
import type * as z from 'zod/mini';
import type { Deps } from '../deps';
import type { Branding } from '../hosted/branding';
import type { SignedInBrowser } from '../hosted/page-session';
import type { Identity } from '../tokens/access-token';
import type { Language, Translate } from './i18n';

/*
 * The sections of the account page and the tenant console (docs/api.md 15.1). A section is
 * one file exporting a `Section` and one line in its area's registry
 * (lib/console/account/registry.ts, lib/console/admin/registry.ts): the frame finds it by
 * the path, renders it in the layout, parses its forms and runs its actions.
 */

/** The area a page belongs to: the account page or the tenant console. */
export type AreaId = 'account' | 'admin';

/** What a section's render and actions get: the signed-in browser, its language and the tenant's branding. */
export interface PageContext {
  deps: Deps;
  event: APIGatewayProxyEventV2;
  area: AreaId;
  signedIn: SignedInBrowser;
  /** The signed-in user as the JSON routes' domain functions take a caller (one rule, one place). */
  identity: Identity;
  language: Language;
  t: Translate;
  branding: Branding;
  /** The page's query (`GET /admin/console/staff?q=...`); empty for a POST. */
  query: Readonly<Record<string, string | undefined>>;
}

/** A form posted back with problems: what it held (never a password) and each field's message. */
export interface FormState {
  /** The action whose form this was. */
  action: string;
  values: Readonly<Record<string, string>>;
  /** The message of each field by name, already translated. */
  errors: Readonly<Record<string, string>>;
  /** A problem of the form as a whole (a refusal of the domain), already translated. */
  problem?: string | undefined;
}

/** What a section shows: its content, and the inline scripts it runs (by hash, the page works without them). */
export interface SectionView {
  content: VNode;
  scripts?: string[];
}

/** What an action ends with. */
export type ActionOutcome =
  /** Back to the section's page (303), with a message (a key and its values) shown once. */
  | { flash: string; values?: Record<string, string>; query?: Record<string, string> }
  /** A page of its own (200, no-store): a secret shown once, never put in a cookie or a URL. */
  | { page: VNode; scripts?: string[] };

/** An action of a section: the form it takes (without `csrf`) and what it does. */
export interface SectionAction<S extends z.ZodMiniType = z.ZodMiniType> {
  form: S;
  /**
   * Names of fields never sent back into a re-rendered form (passwords, codes). Fields
   * whose name contains `password` are never sent back in any case.
   */
  secretFields?: readonly string[];
  run(context: PageContext, input: z.output<S>): Promise<ActionOutcome>;
}

/** A section of an area: its path segment, its title (a message key), its place in the navigation. */
export interface Section {
  /** The path segment, `[a-z][a-z0-9-]*`; `language` is the frame's. */
  id: string;
  /** The message key of its title (in the navigation and its `<h1>`). */
  title: string;
  /** Its place in the navigation, smallest first. */
  order: number;
  render(context: PageContext, form?: FormState): Promise<VNode | SectionView>;
  actions: Record<string, SectionAction>;
}

/** An action, typed from its form: the schema's output is what `run` gets. */
export const defineAction = <S extends z.ZodMiniType>(action: SectionAction<S>): SectionAction => action as SectionAction;
