import { Injectable } from '@nestjs/common';

/**
 * A route's first read, sent in the statement that looks up the request's API key, so that a request whose answer
 * needs one read besides its key costs one round trip to PostgreSQL instead of two (GET /availability when its cached
 * answer is still good). It is read for the key's organization, whatever the key turns out to be: the access guard
 * checks the key (revoked, expired, scope, origins) before any route sees the result, which is dropped on refusal.
 * Registered by the module that owns the read (AvailabilityService); named by the route's Access rule (`withKey`).
 */
export interface KeyCompanion<T> {
  /**
   * Its parameters from the raw request, before validation: null when this request cannot compose it (a malformed
   * value, or an option the read does not cover), and the route then reads alone as it would without this.
   */
  params(request: { query?: unknown }): readonly string[] | null;
  /**
   * Its select list: expressions with aliases that the key's own columns do not use, given SQL naming the key's
   * organization and mode and the placeholders of its parameters.
   */
  columns(key: KeyColumns, placeholders: readonly string[]): string;
  /** Its value from the row, read with these parameters. */
  parse(row: Record<string, unknown>, params: readonly string[]): T;
}

/** SQL naming the looked-up key's organization and whether it is a live key, for a companion's columns. */
export interface KeyColumns {
  readonly organization: string;
  readonly livemode: string;
}

/** A companion composed for one request: what the key's lookup adds to its statement. */
export interface ComposedCompanion {
  readonly name: string;
  readonly read: KeyCompanion<unknown>;
  readonly params: readonly string[];
}

/** The result of a request's companion read, kept on the request for its route (see companionOf). */
export interface CompanionResult {
  readonly name: string;
  readonly params: readonly string[];
  readonly value: unknown;
}

export interface RequestWithCompanion {
  keyCompanion?: CompanionResult;
}

/** The registered companion reads, by name. */
@Injectable()
export class KeyCompanions {
  private readonly reads = new Map<string, KeyCompanion<unknown>>();

  register<T>(name: string, read: KeyCompanion<T>): void {
    if (this.reads.has(name)) throw new Error(`A key companion named ${name} is already registered`);
    this.reads.set(name, read);
  }

  /**
   * The companion a route names, composed for this request; null when the route names none or this request cannot
   * compose it. A name nothing registered is a wiring mistake, refused rather than silently read apart.
   */
  compose(name: string | undefined, request: { query?: unknown }): ComposedCompanion | null {
    if (name === undefined) return null;
    const read = this.reads.get(name);
    if (!read) throw new Error(`No key companion is registered as ${name}`);
    const params = read.params(request);
    return params ? { name, read, params } : null;
  }
}

/**
 * The value the named companion read for this request, when it was composed with exactly these parameters (the
 * route's validated ones); undefined otherwise, and the route reads for itself.
 */
export function companionOf<T>(request: object, name: string, params: readonly string[]): T | undefined {
  const found = (request as RequestWithCompanion).keyCompanion;
  if (!found || found.name !== name || found.params.length !== params.length) return undefined;
  return found.params.every((param, index) => param === params[index]) ? (found.value as T) : undefined;
}
