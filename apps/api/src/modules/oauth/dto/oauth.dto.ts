import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsIn,
  IsString,
  Length,
  MaxLength,
  registerDecorator,
  ValidateIf,
  type ValidationOptions,
} from 'class-validator';
import { ALL_SCOPES, Optional, type Scope } from '@app/common';
import type { OAuthAppType } from '../entities/oauth-app.entity.js';
import { redirectUriProblem } from '../redirect-uris.js';

export const MAX_REDIRECT_URIS = 10;
const REDIRECTS_DESCRIPTION =
  '1..10 absolute URLs, matched exactly (string equality): `https`, or `http` with host `localhost`, `127.0.0.1` or `[::1]`; no fragment.';

const REDIRECT_URI_ITEM = { type: 'string', format: 'uri', maxLength: 2000 } as const;

function firstRedirectProblem(value: unknown): string | null {
  for (const uri of Array.isArray(value) ? value : [value]) {
    const problem = typeof uri === 'string' ? redirectUriProblem(uri) : 'a redirect URI is a string';
    if (problem) return problem;
  }
  return null;
}

/** A redirect URI as contract § 20 allows it (redirect-uris.ts); the OpenAPI document shows it as a `uri`. */
function IsRedirectUri(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isRedirectUri',
      target: target.constructor,
      propertyName: String(propertyName),
      options: {
        // With `each`, the message is given the whole list: it names the first URI refused.
        message: (args) => firstRedirectProblem(args.value) ?? 'not a redirect URI',
        ...options,
      },
      validator: { validate: (value: unknown) => typeof value === 'string' && redirectUriProblem(value) === null },
    });
}

export class CreateOAuthAppDto {
  @ApiProperty({ minLength: 1, maxLength: 100 })
  @IsString()
  @Length(1, 100)
  name!: string;

  @ApiProperty({
    enum: ['confidential', 'public'],
    description: 'confidential: a server that keeps a secret; public: a browser or native app',
  })
  @IsIn(['confidential', 'public'])
  type!: OAuthAppType;

  @ApiProperty({ type: 'array', items: REDIRECT_URI_ITEM, minItems: 1, maxItems: MAX_REDIRECT_URIS, description: REDIRECTS_DESCRIPTION })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(MAX_REDIRECT_URIS)
  @ArrayUnique()
  @IsString({ each: true })
  @MaxLength(2000, { each: true })
  @IsRedirectUri({ each: true })
  redirectUris!: string[];

  @ApiProperty({ enum: ALL_SCOPES, isArray: true, description: 'What the app may ask for: a non-empty subset of the scopes' })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayUnique()
  @IsIn(ALL_SCOPES, { each: true })
  scopes!: Scope[];

  @ApiPropertyOptional({ type: String, nullable: true, description: 'https URL' })
  @Optional()
  @IsString()
  @MaxLength(2000)
  homepageUrl?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'https URL of a square image' })
  @Optional()
  @IsString()
  @MaxLength(2000)
  logoUrl?: string | null;
}

/** What PATCH /oauth-apps/:id may change (not the type). */
export class UpdateOAuthAppDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 100 })
  @ValidateIf((_object: object, value: unknown) => value !== undefined)
  @IsString()
  @Length(1, 100)
  name?: string;

  @ApiPropertyOptional({
    type: 'array',
    items: REDIRECT_URI_ITEM,
    minItems: 1,
    maxItems: MAX_REDIRECT_URIS,
    description: REDIRECTS_DESCRIPTION,
  })
  @ValidateIf((_object: object, value: unknown) => value !== undefined)
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(MAX_REDIRECT_URIS)
  @ArrayUnique()
  @IsString({ each: true })
  @MaxLength(2000, { each: true })
  @IsRedirectUri({ each: true })
  redirectUris?: string[];

  @ApiPropertyOptional({ enum: ALL_SCOPES, isArray: true, description: 'Existing grants keep what they were given' })
  @ValidateIf((_object: object, value: unknown) => value !== undefined)
  @IsArray()
  @ArrayNotEmpty()
  @ArrayUnique()
  @IsIn(ALL_SCOPES, { each: true })
  scopes?: Scope[];

  @ApiPropertyOptional({ type: String, nullable: true, description: 'https URL; null removes it' })
  @Optional()
  @IsString()
  @MaxLength(2000)
  homepageUrl?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'https URL; null removes it' })
  @Optional()
  @IsString()
  @MaxLength(2000)
  logoUrl?: string | null;
}

export class OAuthAppView {
  @ApiProperty({ example: 'app_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty({ description: 'The `client_id` of the OAuth flow' }) clientId!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ['confidential', 'public'] }) type!: OAuthAppType;
  @ApiProperty({ type: String, isArray: true }) redirectUris!: string[];
  @ApiProperty({ enum: ALL_SCOPES, isArray: true }) scopes!: Scope[];
  @ApiProperty({ type: String, nullable: true }) homepageUrl!: string | null;
  @ApiProperty({ type: String, nullable: true }) logoUrl!: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
}

export class OAuthAppResponse {
  @ApiProperty({ type: OAuthAppView }) app!: OAuthAppView;
}

export class CreatedOAuthAppResponse {
  @ApiProperty({ type: OAuthAppView }) app!: OAuthAppView;
  @ApiPropertyOptional({
    description: 'Confidential apps only: `cs_` + 40 base62 characters, shown only in this response',
    example: 'cs_…',
  })
  clientSecret?: string;
}

export class OAuthAppListResponse {
  @ApiProperty({ type: OAuthAppView, isArray: true }) apps!: OAuthAppView[];
}

export class OAuthSecretResponse {
  @ApiProperty({ description: 'The new secret, shown only here; the previous one keeps working 24 hours', example: 'cs_…' })
  clientSecret!: string;
}

export class OAuthAppSummary {
  @ApiProperty({ example: 'app_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: String, nullable: true }) homepageUrl!: string | null;
  @ApiProperty({ type: String, nullable: true }) logoUrl!: string | null;
}

export class OAuthRequestView {
  @ApiProperty() id!: string;
  @ApiProperty({ type: OAuthAppSummary }) app!: OAuthAppSummary;
  @ApiProperty({ enum: ALL_SCOPES, isArray: true }) scopes!: Scope[];
  @ApiProperty() redirectUri!: string;
  @ApiProperty({ type: String, format: 'date-time' }) expiresAt!: string;
}

export class OAuthRequestResponse {
  @ApiProperty({ type: OAuthRequestView }) request!: OAuthRequestView;
}

export class OAuthRedirectResponse {
  @ApiProperty({ description: 'Where the browser goes now: the app’s redirect_uri with code (or error), state and iss' })
  redirectTo!: string;
}

export class OAuthGrantView {
  @ApiProperty({ example: 'grt_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty({ type: OAuthAppSummary }) app!: OAuthAppSummary;
  @ApiProperty({ enum: ALL_SCOPES, isArray: true }) scopes!: Scope[];
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) lastUsedAt!: string | null;
}

export class OAuthGrantListResponse {
  @ApiProperty({ type: OAuthGrantView, isArray: true }) grants!: OAuthGrantView[];
}
