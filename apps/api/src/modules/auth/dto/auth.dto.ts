import { ApiProperty, type ApiPropertyOptions, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsString, Length, Matches, MaxLength } from 'class-validator';
import { IsIanaTimeZone, IsLocale, Optional, toCanonicalLocale } from '@app/common';

const trimLower = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim().toLowerCase() : value);

export class RegisterDto {
  @ApiProperty({ format: 'email', maxLength: 254 })
  @Transform(trimLower)
  @IsEmail()
  @MaxLength(254)
  email!: string;

  @ApiProperty({ minLength: 8, maxLength: 128 })
  @IsString()
  @Length(8, 128)
  password!: string;

  @ApiPropertyOptional({ maxLength: 100 })
  @Optional()
  @IsString()
  @Length(1, 100)
  firstName?: string;

  @ApiPropertyOptional({ maxLength: 100 })
  @Optional()
  @IsString()
  @Length(1, 100)
  lastName?: string;

  @ApiProperty({ minLength: 1, maxLength: 100 })
  @IsString()
  @Length(1, 100)
  @Matches(/\S/, { message: 'organizationName must not be blank' })
  organizationName!: string;

  @ApiPropertyOptional({ default: 'UTC', example: 'Europe/Berlin' })
  @Optional()
  @IsIanaTimeZone()
  timezone?: string;
}

export class LoginDto {
  @ApiProperty({ format: 'email' })
  @Transform(trimLower)
  @IsString()
  @MaxLength(254)
  email!: string;

  @ApiProperty()
  @IsString()
  @MaxLength(128)
  password!: string;
}

export class RefreshDto {
  @ApiProperty()
  @IsString()
  @MaxLength(512)
  refreshToken!: string;
}

export class UpdateMeDto {
  @ApiPropertyOptional({ maxLength: 100, nullable: true })
  @Optional()
  @IsString()
  @Length(1, 100)
  firstName?: string;

  @ApiPropertyOptional({ maxLength: 100, nullable: true })
  @Optional()
  @IsString()
  @Length(1, 100)
  lastName?: string;

  @ApiPropertyOptional({ example: 'America/New_York' })
  @Optional()
  @IsIanaTimeZone()
  timezone?: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: 35,
    example: 'de',
    description:
      'The caller’s language for its mails (contract § 23), a BCP 47 tag kept in its canonical form; the catalog is found by ' +
      'lookup (`de-AT` → `de`). null: the organization’s `defaultLocale`.',
  })
  @Optional()
  @Transform(toCanonicalLocale)
  @IsLocale()
  locale?: string | null;
}

export class TokensResponse {
  @ApiProperty({ description: 'JWT (HS256), sent as `Authorization: Bearer <token>`' }) accessToken!: string;
  @ApiProperty({ description: 'Opaque; rotates on every use' }) refreshToken!: string;
  @ApiProperty({ enum: ['Bearer'] }) tokenType!: 'Bearer';
  @ApiProperty({ type: 'integer', description: 'Access-token lifetime in seconds' }) expiresIn!: number;
}

export class UserView {
  @ApiProperty({ example: 'usr_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty() email!: string;
  @ApiProperty({ nullable: true, type: String }) firstName!: string | null;
  @ApiProperty({ nullable: true, type: String }) lastName!: string | null;
  @ApiProperty() timezone!: string;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'de',
    description: 'The user’s language for its mails (contract § 23); null: the organization’s `defaultLocale`',
  })
  locale!: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
}

export class OrganizationSummary {
  @ApiProperty({ example: 'org_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() slug!: string;
  @ApiPropertyOptional({ description: 'In `GET /users/me`: the locale of readers without one of their own (contract § 23)' })
  defaultLocale?: string;
  @ApiPropertyOptional({ type: String, format: 'date-time' }) createdAt?: string;
}

export class MemberSummary {
  @ApiProperty({ example: 'mem_4f9QdY0m2kBz7Lr1Xc8VtN3a', nullable: true, type: String }) id!: string | null;
  @ApiProperty({ enum: ['owner', 'admin', 'member'], nullable: true, type: String }) role!: string | null;
  @ApiPropertyOptional() email?: string;
  @ApiPropertyOptional() status?: string;
}

export class RegisterResponse extends TokensResponse {
  @ApiProperty({ type: UserView }) user!: UserView;
  @ApiProperty({ type: OrganizationSummary }) organization!: OrganizationSummary;
  @ApiProperty({ type: MemberSummary }) member!: MemberSummary;
}

export class ApiKeySummary {
  @ApiProperty() id!: string;
  @ApiProperty({ isArray: true, type: String }) scopes!: string[];
  @ApiProperty({ enum: ['live', 'test'] }) mode!: string;
}

/** UserView and MemberSummary written out, nullable: a $ref cannot be (OpenAPI 3.0). */
const ME_USER_SCHEMA = {
  type: 'object',
  nullable: true,
  selfRequired: true,
  required: ['id', 'email', 'firstName', 'lastName', 'timezone', 'locale', 'createdAt'],
  properties: {
    id: { type: 'string', example: 'usr_4f9QdY0m2kBz7Lr1Xc8VtN3a' },
    email: { type: 'string' },
    firstName: { type: 'string', nullable: true },
    lastName: { type: 'string', nullable: true },
    timezone: { type: 'string' },
    locale: {
      type: 'string',
      nullable: true,
      example: 'de',
      description: 'The user’s language for its mails (contract § 23); null: the organization’s `defaultLocale`',
    },
    createdAt: { type: 'string', format: 'date-time' },
  },
} as ApiPropertyOptions;

const ME_MEMBER_SCHEMA = {
  type: 'object',
  nullable: true,
  selfRequired: true,
  required: ['id', 'role'],
  properties: {
    id: { type: 'string', nullable: true, example: 'mem_4f9QdY0m2kBz7Lr1Xc8VtN3a' },
    role: { type: 'string', nullable: true, enum: ['owner', 'admin', 'member'] },
  },
} as ApiPropertyOptions;

export class AppSummary {
  @ApiProperty({ example: 'app_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty() name!: string;
}

export class MeResponse {
  @ApiProperty({ ...ME_USER_SCHEMA, description: 'null when the caller is a partner app’s access token' }) user!: UserView | null;
  @ApiProperty({ type: OrganizationSummary }) organization!: OrganizationSummary;
  @ApiProperty({ ...ME_MEMBER_SCHEMA, description: 'null when the caller is a partner app’s access token' })
  member!: MemberSummary | null;
  @ApiPropertyOptional({ type: ApiKeySummary, description: 'Present when the caller is an API key' }) apiKey?: ApiKeySummary;
  @ApiPropertyOptional({ type: AppSummary, description: 'Present when the caller is a partner app’s access token' }) app?: AppSummary;
  @ApiPropertyOptional({ isArray: true, type: String, description: 'The access token’s scopes (partner apps only)' }) scopes?: string[];
}

export class UserResponse {
  @ApiProperty({ type: UserView }) user!: UserView;
}

export class SessionView {
  @ApiProperty({ example: 'ses_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time' }) lastUsedAt!: string;
  @ApiProperty({ nullable: true, type: String }) userAgent!: string | null;
  @ApiProperty() current!: boolean;
}

export class SessionListResponse {
  @ApiProperty({ type: SessionView, isArray: true }) sessions!: SessionView[];
}
