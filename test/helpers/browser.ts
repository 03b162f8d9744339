import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, type BrowserContext, type BrowserContextOptions, type CDPSession, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { type App, testApp } from './app';
import { type TestDeps, testDeps } from './deps';
import { startApiServer } from './http-server';
import { pkcePair, type TestClient, tokenRequest } from './oauth';
import { mountServerlessRoutes } from './routes';

/**
 * Debian's chromium headless shell (apt `chromium-headless-shell`, see .ci/run): the same
 * Chromium release as apt `chromium`, built for automation, as Playwright runs headless
 * tests by default; a third of the full browser's CPU in this suite
 * (docs/decisions/033-chromium-headless-shell.md). The binary itself, not the
 * /usr/bin wrapper (a shell that does not exec it), so that the PID to kill is the
 * browser's. `TEST_CHROMIUM=/usr/bin/chromium` runs the files in the full browser
 * instead. playwright-core downloads no browser.
 */
const CHROMIUM = process.env.TEST_CHROMIUM || '/usr/lib/chromium/chromium-headless-shell';

export interface BrowserStackOptions {
  /** Configuration besides `ISSUER` (set to the stack's URL), as testDeps takes it. */
  env?: (issuer: string) => Record<string, string>;
  /**
   * The host of the service: `127.0.0.1`, or `localhost` where passkeys need a domain
   * (an RP ID is never an IP address). The partner apps live on the other one.
   */
  host?: '127.0.0.1' | 'localhost';
  /** Files the partner apps serve by path (a single-page app, its bundle); any other path answers 200 `partner app`. */
  appFiles?: Record<string, { contentType: string; body: string }>;
}

/** A token endpoint's answer (docs/api.md 11.6). */
export interface TokenAnswer {
  access_token: string;
  scope?: string;
  id_token?: string;
  refresh_token?: string;
}

export interface BrowserStack {
  /** The service's base URL, its `iss`. */
  issuer: string;
  /** The partner apps' base URL, on another site than the service: each answers any request with 200. */
  appsBase: string;
  deps: TestDeps;
  /** The same functions called in-process, for set-up and checks beside the browser. */
  app: App;
  browser: Browser;
  /** A fresh browser profile (its own cookie jar), failing a step after 5 s. */
  context(options?: BrowserContextOptions): Promise<BrowserContext>;
  /**
   * A fresh profile with a page and a virtual platform authenticator (CDP WebAuthn domain,
   * user verification on); `conditional: false` hides autofill (conditional mediation).
   */
  withAuthenticator(options?: { conditional?: boolean }): Promise<VirtualAuthenticator>;
  /**
   * A new authorization request of `client` (docs/api.md 11.5) for the browser to open: its
   * URL, with PKCE and a fresh state, scope `orders:read` unless `fields` say otherwise
   * (they add or replace parameters).
   */
  authorizeUrl(client: TestClient, fields?: Record<string, string>): { url: string; verifier: string; state: string };
  /**
   * The browser is back at `client`'s callback with the request's state, the service's
   * `iss` (RFC 9207) and a code that redeems with the verifier: the token answer.
   */
  arrived(page: Page, client: TestClient, state: string, verifier: string): Promise<TokenAnswer>;
  /** Closes the browser (killing its process if it does not go), the service and the apps. */
  close(): Promise<void>;
}

export interface VirtualAuthenticator {
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  authenticatorId: string;
}

/** A stack where passkeys work: WebAuthn needs a domain for the RP ID, never an IP address. */
export const PASSKEY_STACK: BrowserStackOptions = {
  host: 'localhost',
  env: (issuer) => ({ WEBAUTHN_RP_ID: 'localhost', WEBAUTHN_ORIGINS: issuer }),
};

/**
 * The hosted pages' browser tests' stack: the service's functions on real HTTP (the run's
 * DynamoDB Local, a clock at real time), partner apps answering redirects on another site,
 * and one chromium for the file driven by playwright-core.
 */
export async function startBrowserStack(options: BrowserStackOptions = {}): Promise<BrowserStack> {
  const host = options.host ?? '127.0.0.1';
  const server = await startApiServer();
  const apps = createServer((request, response) => {
    const file = options.appFiles?.[new URL(request.url ?? '/', 'http://apps').pathname];
    if (file) response.writeHead(200, { 'content-type': file.contentType }).end(file.body);
    else response.writeHead(200, { 'content-type': 'text/plain' }).end('partner app');
  });
  await new Promise<void>((listening) => apps.listen(0, '127.0.0.1', listening));
  const appsHost = host === 'localhost' ? '127.0.0.1' : 'localhost';
  const appsBase = `http://${appsHost}:${(apps.address() as AddressInfo).port}`;
  const issuer = server.url.replace('127.0.0.1', host);
  const deps = await testDeps({ ISSUER: issuer, ...options.env?.(issuer) });
  deps.clock.set(Date.now());
  // Every route of serverless.yml, as API Gateway would serve it.
  mountServerlessRoutes(server, deps);
  // A browser server rather than `launch`, for the PID of its process.
  const chromiumServer = await chromium.launchServer({ executablePath: CHROMIUM });
  const pid = chromiumServer.process().pid;
  const browser = await chromium.connect(chromiumServer.wsEndpoint());

  const stackApp = testApp(deps);
  const context = async (contextOptions?: BrowserContextOptions) => {
    const opened = await browser.newContext(contextOptions);
    // A step waits no more than this: well above a step's time alone (about a second), as
    // four test files and DynamoDB Local share two cores (one form post of a passkey took
    // over 5 s in a full run).
    opened.setDefaultTimeout(10_000);
    return opened;
  };

  return {
    issuer,
    appsBase,
    deps,
    app: stackApp,
    browser,
    context,
    async withAuthenticator({ conditional = true } = {}) {
      const opened = await context();
      if (!conditional)
        await opened.addInitScript(() => {
          PublicKeyCredential.isConditionalMediationAvailable = async () => false;
        });
      const page = await opened.newPage();
      const cdp = await opened.newCDPSession(page);
      await cdp.send('WebAuthn.enable');
      const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
      });
      return { context: opened, page, cdp, authenticatorId };
    },
    authorizeUrl(client, fields = {}) {
      const { verifier, challenge } = pkcePair();
      const url = new URL('/oauth2/authorize', issuer);
      const parameters = {
        response_type: 'code',
        client_id: client.clientId,
        redirect_uri: client.redirectUri,
        scope: 'orders:read',
        state: `state-${Math.random().toString(36).slice(2)}`,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        ...fields,
      };
      url.search = new URLSearchParams(parameters).toString();
      return { url: url.href, verifier, state: parameters.state };
    },
    async arrived(page, client, state, verifier) {
      await page.waitForURL(`${client.redirectUri}?**`);
      const callback = new URL(page.url());
      expect(callback.searchParams.get('state')).toBe(state);
      expect(callback.searchParams.get('iss')).toBe(issuer);
      const code = callback.searchParams.get('code') ?? '';
      const tokens = await stackApp.request(
        'oauth2Token',
        tokenRequest(client, { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, code_verifier: verifier }),
      );
      expect(tokens.status).toBe(200);
      return tokens.body as TokenAnswer;
    },
    async close() {
      await browser.close().catch(() => undefined);
      const closed = chromiumServer.close();
      const timedOut = new Promise<'timeout'>((done) => setTimeout(done, 5_000, 'timeout').unref());
      if ((await Promise.race([closed, timedOut])) === 'timeout' && pid) process.kill(pid, 'SIGKILL');
      await server.close();
      await new Promise((done) => apps.close(done));
    },
  };
}
