import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsEmail,
  IsIn,
  IsString,
  Length,
  MaxLength,
  Validate,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { Optional } from '@app/common';

export const SSO_ROLES = ['member', 'admin'] as const;
export type SsoRole = (typeof SSO_ROLES)[number];

/** An email domain: labels of letters, digits and hyphens, at least two, lower case. */
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

/** Documented as `format: hostname` (apps/api/src/openapi/validation-schemas.ts). */
@ValidatorConstraint({ name: 'isEmailDomain' })
export class IsEmailDomain implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && DOMAIN.test(value);
  }

  defaultMessage(): string {
    return 'each of domains must be a lower-case domain name';
  }
}

export class PutSsoDto {
  @ApiProperty({
    format: 'uri',
    maxLength: 2048,
    description:
      'The OpenID Provider’s issuer: https (http allowed outside production); its discovery document is read and checked when saved',
  })
  @IsString()
  @MaxLength(2048)
  issuer!: string;

  @ApiProperty({ minLength: 1, maxLength: 255 })
  @IsString()
  @Length(1, 255)
  clientId!: string;

  @ApiProperty({ minLength: 1, maxLength: 1024, description: 'Stored encrypted; never returned' })
  @IsString()
  @Length(1, 1024)
  clientSecret!: string;

  @ApiProperty({
    type: 'array',
    items: { type: 'string', format: 'hostname', maxLength: 253 },
    minItems: 1,
    maxItems: 20,
    uniqueItems: true,
    description: 'Email domains whose people sign in through this provider, lower case; each claimed by one organization only',
    example: ['example.com'],
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(20)
  @ArrayUnique()
  @IsString({ each: true })
  @Validate(IsEmailDomain, { each: true })
  domains!: string[];

  @ApiPropertyOptional({ default: false, description: 'Refuse password sign-in for these domains (owners excepted)' })
  @Optional()
  @IsBoolean()
  enforce?: boolean;

  @ApiPropertyOptional({ enum: SSO_ROLES, default: 'member', description: 'The role of a person provisioned at first sign-in' })
  @Optional()
  @IsIn(SSO_ROLES)
  defaultRole?: SsoRole;
}

export class SsoView {
  @ApiProperty({ format: 'uri' }) issuer!: string;
  @ApiProperty() clientId!: string;
  @ApiProperty({ type: [String] }) domains!: string[];
  @ApiProperty() enforce!: boolean;
  @ApiProperty({ enum: SSO_ROLES }) defaultRole!: SsoRole;
  @ApiProperty({ format: 'uri', description: 'The redirect URI to register at the provider' }) redirectUri!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class SsoResponse {
  @ApiProperty({ type: SsoView }) sso!: SsoView;
}

export class SsoStartQueryDto {
  @ApiProperty({ format: 'email', maxLength: 254, description: 'The person’s email: its domain names the organization' })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toLowerCase() : value))
  @IsEmail()
  @MaxLength(254)
  email!: string;
}

export class ScimTokenResponse {
  @ApiProperty({ description: '`scim_` and 40 base62 characters; shown once', example: 'scim_3kTMd8sVYqPzW1bXnR0aQe7LcU5hJ2fG9yKoNiAt' })
  token!: string;
}
