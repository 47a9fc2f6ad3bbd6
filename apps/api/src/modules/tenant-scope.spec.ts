import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { tenantScope, type TenantScope } from '@app/common';

const MODULES = dirname(fileURLToPath(import.meta.url));
const APPS = join(MODULES, '..', '..', '..');

/**
 * Data-access methods that deliberately take no TenantScope, with the reason. Everything else that
 * touches the database in a module takes one as its first parameter. The credential lookups that turn
 * something a caller presents into a scope are all in GlobalLookups (modules/global-lookups).
 */
const UNSCOPED: Record<string, string> = {
  GlobalLookups: 'the one place for lookups across organizations (credentials, global uniqueness)',
  AuthRepository: 'account data: users, sessions and login failures belong to a person, not to an organization',
  WebhookQueueRepository: 'the delivery queue: the jobs framework works on every organization’s rows at once',
  'CalendarWritesRepository.claimWrites': 'write-back queue (jobs framework)',
  'CalendarWritesRepository.finishWrite': 'write-back queue (jobs framework)',
  'CalendarWritesRepository.retryWrite': 'write-back queue (jobs framework)',
  'CalendarWritesRepository.holdWrite': 'write-back queue (jobs framework)',
  'CalendarWritesRepository.failWrite': 'write-back queue (jobs framework)',
  'CalendarWritesRepository.msUntilNextWrite': 'write-back queue (jobs framework)',
  'CalendarWritesRepository.setBack': 'write-back queue (jobs framework)',
  'CalendarWritesRepository.clearFinishedBodiesBefore': 'retention job over all organizations',
  ReminderQueueRepository: 'the due reminders: the jobs framework works on every organization’s rows at once',
  'MailRepository.claimDue': 'mail queue (jobs framework)',
  'MailRepository.markSent': 'mail queue (jobs framework)',
  'MailRepository.scheduleRetry': 'mail queue (jobs framework)',
  'MailRepository.markFailed': 'mail queue (jobs framework)',
  'MailRepository.msUntilNextDue': 'mail queue (jobs framework)',
  'MailRepository.deleteSentBefore': 'retention job over all organizations',
  'DomainEventsRepository.claimUndispatched': 'outbox queue (jobs framework)',
  'DomainEventsRepository.markDispatched': 'outbox queue (jobs framework)',
  'DomainEventsRepository.retry': 'outbox queue (jobs framework)',
  'DomainEventsRepository.park': 'outbox queue (jobs framework)',
  'DomainEventsRepository.setBack': 'outbox queue (jobs framework)',
  'DomainEventsRepository.msUntilNextDue': 'outbox queue (jobs framework)',
  'DomainEventsRepository.deleteDispatchedBefore': 'retention job over all organizations',
  'AuditRepository.insert': 'the entry carries its organization id, taken from the request by AuditTrail (which makes no scope)',
  'AuditRepository.insertOutside': 'a failed sign-in’s entry: the same row as insert, outside the failed transaction',
  'AuditRepository.deleteBefore': 'retention job over all organizations',
  'AuditRepository.settledBelow': 'the oldest transaction still running in the database: no organization’s rows',
  'IdempotencyRepository.deleteExpired': 'cleanup job over all organizations',
  'VisitorBookingsRepository.deleteBefore': 'cleanup job over all organizations',
  'RoutingFormsRepository.deleteVisitorResponsesBefore': 'cleanup job over all organizations',
  'HoldsRepository.deleteEnded': 'the sweep of ended holds over all organizations',
  'BookingCountsRepository.fold': 'the fold of the kept booking counts over all organizations (a job round)',
  OAuthProtocolRepository:
    'the OAuth protocol’s rows, found by what a client or browser presents (client id, request id, code, token): they span the app’s organization and the connecting ones',
  HealthController: 'the probes ask the database itself (is it up, is it a standby), no organization’s rows',
  'CalendarsRepository.sealedSecretsAfter': 're-sealing job after a key rotation (every organization’s rows)',
  'CalendarsRepository.replaceSealedSecrets': 're-sealing job after a key rotation (every organization’s rows)',
};

/**
 * What a scoped method takes first: a TenantScope, or (a job's round over several organizations, one statement for
 * all) its ids each with their TenantScope (ScopedIds, libs/common).
 */
const SCOPED_FIRST_PARAMETERS = ['TenantScope', 'readonly ScopedIds[]'];

const TOUCHES_DATABASE = /\.query\(|\.prepared\b|\.manager\b|\.transactional\b|\btx\.write\(|createQueryBuilder/;

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

interface DataMethod {
  className: string;
  method: string;
  firstParameterType: string | undefined;
}

/** Public methods of the classes in one file, with the written type of their first parameter. */
function methodsOf(path: string, text: string): DataMethod[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: DataMethod[] = [];
  source.forEachChild((node) => {
    if (!ts.isClassDeclaration(node) || !node.name) return;
    for (const member of node.members) {
      if (!ts.isMethodDeclaration(member) || !ts.isIdentifier(member.name)) continue;
      const modifiers = ts.getModifiers(member) ?? [];
      if (modifiers.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword)) continue;
      found.push({ className: node.name.text, method: member.name.text, firstParameterType: member.parameters[0]?.type?.getText(source) });
    }
  });
  return found;
}

function dataAccessMethods(): DataMethod[] {
  return sourceFiles(MODULES)
    .map((path) => ({ path, text: readFileSync(path, 'utf8') }))
    .filter(({ text }) => TOUCHES_DATABASE.test(text))
    .flatMap(({ path, text }) => methodsOf(path, text));
}

function exempt(method: DataMethod): boolean {
  return UNSCOPED[method.className] !== undefined || UNSCOPED[`${method.className}.${method.method}`] !== undefined;
}

describe('tenant scope', () => {
  const methods = dataAccessMethods();

  it('finds the data-access classes', () => {
    const classes = new Set(methods.map((m) => m.className));
    for (const name of [
      'BookingsRepository',
      'TeamRepository',
      'SlotReadModel',
      'GlobalLookups',
      'DomainEventsRepository',
      'BookingCounts',
    ]) {
      expect(classes).toContain(name);
    }
  });

  it('every data-access method takes a TenantScope (or ScopedIds) first, unless it is a named exception', () => {
    const unscoped = methods.filter((m) => !exempt(m) && !SCOPED_FIRST_PARAMETERS.includes(m.firstParameterType ?? ''));
    expect(unscoped.map((m) => `${m.className}.${m.method}(${m.firstParameterType ?? ''})`)).toEqual([]);
  });

  it('every exception names a method or class that exists', () => {
    const known = new Set(methods.flatMap((m) => [m.className, `${m.className}.${m.method}`]));
    expect(Object.keys(UNSCOPED).filter((name) => !known.has(name))).toEqual([]);
  });

  it('only job workers make a scope from a claimed row', () => {
    const callers = sourceFiles(APPS)
      .filter((path) => readFileSync(path, 'utf8').includes('jobTenantScope('))
      .map((path) => relative(APPS, path));
    expect(callers.length).toBeGreaterThan(0);
    expect(callers.filter((path) => !path.endsWith('.worker.ts'))).toEqual([]);
  });

  it('only GlobalLookups makes a scope without a principal', () => {
    const callers = sourceFiles(APPS)
      .filter((path) => readFileSync(path, 'utf8').includes('verifiedTenantScope('))
      .map((path) => relative(APPS, path));
    expect(callers).toEqual([join('api', 'src', 'modules', 'global-lookups', 'global-lookups.read-model.ts')]);
  });

  it('is branded: only tenantScope(principal) makes one (checked by npm run typecheck, which CI runs)', () => {
    // Compiles only while a plain object with the same fields is not assignable to TenantScope.
    const plainIsNoScope: { organizationId: string; livemode: boolean } extends TenantScope ? false : true = true;
    const made = tenantScope({ type: 'user', organizationId: 'org_1', userId: 'usr_1', memberId: 'mem_1', role: null, livemode: false });
    expect([plainIsNoScope, made.organizationId, made.livemode]).toEqual([true, 'org_1', false]);
  });

  it.each([
    ['class R { find(scope: TenantScope, id: string) {} }', 'TenantScope'],
    ['class R { find(organizationId: string, id: string) {} }', 'string'],
    ['class R { private helper(id: string) {} }', undefined],
  ])('reads %s', (text, type) => {
    const [method] = methodsOf('r.ts', text);
    expect(method?.firstParameterType).toBe(type);
  });
});
