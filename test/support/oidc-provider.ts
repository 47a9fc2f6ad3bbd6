import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import Provider from 'oidc-provider';

export interface OidcAccount {
  email: string;
  email_verified?: boolean;
  given_name?: string;
  family_name?: string;
}

/** Rewrites the claims of the next ID tokens the token endpoint answers (a provider gone wrong, or an attacker's). */
export type IdTokenTamper = (claims: Record<string, unknown>) => Record<string, unknown>;

/**
 * A real OpenID Provider (`oidc-provider`, certified) on a loopback port for the tests, with its own client and
 * accounts. The person signing in is the account the authorization request's `login_hint` names (no login form), and
 * consent is given at once. Its signing keys can be rotated (a new key, a new `kid`), its ID tokens tampered with.
 */
export class TestOidcProvider {
  readonly accounts = new Map<string, OidcAccount>();
  tamper: IdTokenTamper | null = null;
  /** Tampered tokens are signed with a key the provider never published (a forged signature). */
  forgeSignature = false;
  jwksRequests = 0;
  private server!: Server;
  private provider!: Provider;
  private keys: JWK[] = [];
  port = 0;

  constructor(
    readonly clientId: string,
    readonly clientSecret: string,
    readonly redirectUri: string,
  ) {}

  get issuer(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.keys = [await newKey()];
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    this.provider = this.build();
  }

  /** A new signing key replaces the old one: ID tokens from now on carry a `kid` the relying party has not seen. */
  async rotateKeys(): Promise<void> {
    this.keys = [await newKey()];
    this.provider = this.build();
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /**
   * Follows an authorization URL through the provider (its cookies kept) to the redirect back to the relying party:
   * returns that URL (code and state, or an error).
   */
  async authorize(authorizationUrl: string): Promise<URL> {
    const cookies = new Map<string, string>();
    let url = authorizationUrl;
    for (let hops = 0; hops < 10; hops++) {
      if (url.startsWith(this.redirectUri)) return new URL(url);
      const response = await fetch(url, {
        redirect: 'manual',
        headers: { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') },
      });
      for (const header of response.headers.getSetCookie()) {
        const [pair] = header.split(';');
        const at = pair.indexOf('=');
        cookies.set(pair.slice(0, at), pair.slice(at + 1));
      }
      const location = response.headers.get('location');
      if (!location)
        throw new Error(`the provider answered ${response.status} without a redirect: ${(await response.text()).slice(0, 300)}`);
      url = new URL(location, url).toString();
    }
    throw new Error('too many redirects at the provider');
  }

  private build(): Provider {
    const accounts = this.accounts;
    const provider = new Provider(this.issuer, {
      clients: [
        {
          client_id: this.clientId,
          client_secret: this.clientSecret,
          redirect_uris: [this.redirectUri],
          grant_types: ['authorization_code'],
          response_types: ['code'],
        },
      ],
      jwks: { keys: this.keys },
      cookies: { keys: ['test-oidc-provider-cookie-key'] },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['given_name', 'family_name'] },
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      findAccount: (_ctx, id) => {
        const account = accounts.get(id);
        return account ? { accountId: id, claims: () => ({ sub: id, ...account }) } : undefined;
      },
    });
    provider.use(async (ctx, next) => {
      if (ctx.path === '/jwks') this.jwksRequests += 1;
      await next();
      if (ctx.path === '/token' && ctx.status === 200 && this.tamper) {
        const body = ctx.body as { id_token?: string };
        if (body.id_token) body.id_token = await this.resign(this.tamper(decodeJwt(body.id_token)));
      }
    });
    return provider;
  }

  private async resign(claims: Record<string, unknown>): Promise<string> {
    const jwk = this.forgeSignature ? { ...(await newKey()), kid: this.keys[0].kid } : this.keys[0];
    const key = await importJWK(jwk, 'RS256');
    return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: jwk.kid, typ: 'JWT' }).sign(key);
  }

  private async handle(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse): Promise<void> {
    try {
      if (req.url?.startsWith('/interaction/')) {
        const details = await this.provider.interactionDetails(req, res);
        if (details.prompt.name === 'login') {
          const accountId = String(details.params.login_hint ?? '');
          await this.provider.interactionFinished(req, res, { login: { accountId } }, { mergeWithLastSubmission: false });
          return;
        }
        const grant = new this.provider.Grant({ accountId: details.session!.accountId, clientId: String(details.params.client_id) });
        grant.addOIDCScope('openid email profile');
        const grantId = await grant.save();
        await this.provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
        return;
      }
      this.provider.callback()(req, res);
    } catch (error) {
      res.statusCode = 500;
      res.end(String(error));
    }
  }
}

async function newKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: `k${Math.random().toString(36).slice(2, 10)}`, alg: 'RS256', use: 'sig' };
}
