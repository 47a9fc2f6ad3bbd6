import { ApiExcludeController } from '@nestjs/swagger';
import { Controller, Get, Module } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import { ACCESS_METADATA, type AccessRule } from '@app/common';
import { startTestApp, type TestApp } from './support/app.js';

/** Declares nothing: the global guard must refuse it. */
// A test-only route: not part of the published API, so not in its document.
@ApiExcludeController()
@Controller('probe-undeclared')
class UndeclaredController {
  @Get()
  open(): { leaked: true } {
    return { leaked: true };
  }
}

@Module({ controllers: [UndeclaredController] })
class UndeclaredModule {}

interface RouteInfo {
  route: string;
  rule: AccessRule | undefined;
}

/** Every route Nest registered, with the access rule its handler or controller declares. */
function registeredRoutes(t: TestApp): RouteInfo[] {
  const scanner = new MetadataScanner();
  const routes: RouteInfo[] = [];
  for (const module of t.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | undefined;
      if (!controller || controller === UndeclaredController) continue;
      const prototype = controller.prototype as Record<string, unknown>;
      for (const name of scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name] as object;
        const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
        if (path === undefined) continue;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as number;
        const rule = (Reflect.getMetadata(ACCESS_METADATA, handler) ?? Reflect.getMetadata(ACCESS_METADATA, controller)) as
          AccessRule | undefined;
        routes.push({ route: `${method} ${Reflect.getMetadata(PATH_METADATA, controller)}/${path} (${controller.name}.${name})`, rule });
      }
    }
  }
  return routes;
}

describe('access rules: deny by default', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ extraModules: [UndeclaredModule] });
  });
  afterAll(async () => {
    await t.close();
  });

  it('every registered route declares who may call it', () => {
    const routes = registeredRoutes(t);
    expect(routes.length).toBeGreaterThan(10);
    const undeclared = routes.filter((r) => r.rule === undefined).map((r) => r.route);
    expect(undeclared).toEqual([]);
    const publicRoutes = routes.filter((r) => r.rule?.public).map((r) => r.route.split(' (')[1]);
    // Public routes are few and named here on purpose: a new one must be added consciously. Single sign-on's start and
    // callback are browser navigations; SCIM's routes check the organization's SCIM token themselves (contract § 21).
    // Routes for publishable keys (api-rules.md § Browser booking, § Routing forms) are exactly the public booking
    // controller's and the public routing forms controller's.
    const publishable = routes.filter((r) => r.rule?.publishable).map((r) => r.route.split(' (')[1]);
    expect(publishable.length).toBe(8);
    expect(publishable.every((r) => /^(PublicBookingController|PublicRoutingFormsController)\./.test(r))).toBe(true);
    expect(
      publicRoutes.every((r) =>
        /^(HealthController|AuthController\.(register|login|refresh)|ConsoleSessionController\.(login|refresh|logout)|InvitationsController\.accept|CalendarFeedsController\.file|PublicBookingController\.getBooking|SsoSignInController\.(start|callback)|ScimController\.)/.test(
          r,
        ),
      ),
    ).toBe(true);
  });

  it('refuses a route without a declaration, even with valid credentials', async () => {
    const anonymous = await t.http.get('/v1/probe-undeclared');
    expect(anonymous.status).toBe(403);
    expect(anonymous.body.code).toBe('FORBIDDEN');
    expect(anonymous.text).not.toContain('leaked');
  });

  it('documents every operation with its security, scope and error responses in the OpenAPI document', async () => {
    type Operation = {
      security?: Record<string, unknown>[];
      responses: Record<string, unknown>;
      'x-access'?: string;
      'x-required-scope'?: string;
    };
    const doc = (await t.http.get('/docs-json')).body as { paths: Record<string, Record<string, Operation>> };
    const problems: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      if (path.includes('probe')) continue;
      for (const [verb, operation] of Object.entries(operations)) {
        const name = `${verb.toUpperCase()} ${path}`;
        if (!Object.keys(operation.responses).some((status) => /^[23]/.test(status))) problems.push(`${name}: no success response`);
        if (operation['x-access'] === 'public') continue;
        if (operation['x-access']?.startsWith('publishable')) {
          if (JSON.stringify(operation.security) !== JSON.stringify([{ PublishableKey: [] }]))
            problems.push(`${name}: not PublishableKey security`);
          if (!operation.responses['401'] || !operation.responses['403']) problems.push(`${name}: 401/403 not documented`);
          continue;
        }
        const schemes = (operation.security ?? []).flatMap((s) => Object.keys(s));
        if (!schemes.includes('bearer')) problems.push(`${name}: no bearer security`);
        if (!operation['x-required-scope']) problems.push(`${name}: scope not documented`);
        const scope = operation['x-required-scope'] ?? '';
        if (/^[a-z_]+:[a-z]+$|^any$/.test(scope) !== schemes.includes('ApiKey'))
          problems.push(`${name}: ApiKey security and scope disagree`);
        if (!operation.responses['401'] || !operation.responses['429']) problems.push(`${name}: 401/429 not documented`);
      }
    }
    expect(problems).toEqual([]);
  });
});
