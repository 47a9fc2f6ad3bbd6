import { Matches, type ValidationOptions } from 'class-validator';
import { idPattern, type IdPrefix } from '../ids.js';

/** An id of one type (`usr_…`, `evt_…`) in a body or query field: 400 naming the field when malformed, as for path ids. */
export function IsId(prefix: IdPrefix, options: ValidationOptions = {}): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    const name = String(propertyName);
    const message = options.each ? `${name} must contain ids of the form ${prefix}_…` : `${name} must be an id of the form ${prefix}_…`;
    Matches(new RegExp(idPattern(prefix)), { message, ...options })(target, propertyName);
  };
}
