import { DECORATORS } from '@nestjs/swagger';
import { ValidateIf, type ValidationOptions } from 'class-validator';

/** Whether the OpenAPI document says the property of `object`'s class takes null (`nullable: true` on its ApiProperty). */
export function isDocumentedNullable(object: object, property: string | symbol): boolean {
  const documented = Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, object, property) as { nullable?: boolean } | undefined;
  return documented?.nullable === true;
}

/**
 * A field the request may leave out. Unlike class-validator's IsOptional, which skips every check for `null` as well
 * as for a missing field, `null` passes here only where the OpenAPI document declares the field nullable (the
 * contract's `| null`); anywhere else it is validated like any other value and refused with a 400 naming the field
 * (api-rules.md § Basics). The document is the one place that says what is nullable, so the two cannot disagree.
 */
export function Optional(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyKey) => {
    ValidateIf(
      (object: object, value: unknown) => value !== undefined && (value !== null || !isDocumentedNullable(object, propertyKey)),
      options,
    )(target, propertyKey);
  };
}
