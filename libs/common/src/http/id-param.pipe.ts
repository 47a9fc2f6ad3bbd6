import { Injectable, Param, PipeTransform } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { AppError } from '../errors/app-error.js';
import { idPattern, type IdPrefix, looksLikeId } from '../ids.js';

/**
 * One rule for every path id: a value that cannot be an id of that type (wrong prefix, length or
 * characters) is 400 VALIDATION_ERROR naming the parameter, before any lookup, as the OpenAPI document's
 * pattern for it says; a well-formed id that is not the caller's is 404. Pipes run after the guards,
 * so credentials and permission are still checked first.
 */
@Injectable()
export class IdParamPipe implements PipeTransform<string, string> {
  constructor(
    private readonly prefix: IdPrefix,
    private readonly parameter: string,
  ) {}

  transform(value: string): string {
    if (typeof value !== 'string' || !looksLikeId(value, this.prefix)) {
      throw AppError.validation(this.parameter, `${this.parameter} must be an id of the form ${this.prefix}_…`);
    }
    return value;
  }
}

/**
 * `@IdParam('id', 'bkg')`: the path parameter, checked by IdParamPipe, and documented in the OpenAPI
 * document with the very pattern the pipe tests.
 */
export const IdParam =
  (name: string, prefix: IdPrefix): ParameterDecorator =>
  (target, method, index) => {
    Param(name, new IdParamPipe(prefix, name))(target, method, index);
    const descriptor = method === undefined ? undefined : Object.getOwnPropertyDescriptor(target, method);
    if (method !== undefined && descriptor) {
      const schema = { type: 'string' as const, pattern: idPattern(prefix), example: `${prefix}_4f9QdY0m2kBz7Lr1Xc8VtN3a` };
      ApiParam({ name, required: true, schema })(target, method, descriptor);
    }
  };
