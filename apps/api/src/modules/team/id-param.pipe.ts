import { Injectable, PipeTransform } from '@nestjs/common';
import { AppError, type IdPrefix, looksLikeId } from '@app/common';

/** A path id that cannot be one of ours is a 400 naming the parameter, before any lookup. */
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
