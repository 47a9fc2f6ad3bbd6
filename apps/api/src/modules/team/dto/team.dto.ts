import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsIn, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { ALL_ROLES, PaginationQueryDto, type Role } from '@app/common';
import type { MemberStatus } from '../entities/member.entity.js';

export const MEMBER_STATUSES: readonly MemberStatus[] = ['invited', 'active'];

const trimLower = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim().toLowerCase() : value);

export class UpdateOrganizationDto {
  @ApiProperty({ minLength: 1, maxLength: 100 })
  @IsString()
  @Length(1, 100)
  @Matches(/\S/, { message: 'name must not be blank' })
  name!: string;
}

export class InviteMemberDto {
  @ApiProperty({ format: 'email', maxLength: 254, description: 'Case-insensitive; stored lower-cased' })
  @Transform(trimLower)
  @IsEmail()
  @MaxLength(254)
  email!: string;

  @ApiProperty({ enum: ALL_ROLES })
  @IsIn(ALL_ROLES)
  role!: Role;

  @ApiPropertyOptional({ minLength: 1, maxLength: 100 })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  firstName?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 100 })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  lastName?: string;
}

export class UpdateMemberDto {
  @ApiProperty({ enum: ALL_ROLES })
  @IsIn(ALL_ROLES)
  role!: Role;
}

export class ListMembersQueryDto extends PaginationQueryDto {
  @ApiPropertyOptional({ enum: MEMBER_STATUSES })
  @IsOptional()
  @IsIn(MEMBER_STATUSES)
  status?: MemberStatus;

  @ApiPropertyOptional({ enum: ALL_ROLES })
  @IsOptional()
  @IsIn(ALL_ROLES)
  role?: Role;
}

export class OrganizationView {
  @ApiProperty({ example: 'org_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ description: 'Derived from the name at registration; renaming keeps it' }) slug!: string;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;
}

export class OrganizationResponse {
  @ApiProperty({ type: OrganizationView }) organization!: OrganizationView;
}

/** A member as GET shows it; the same shape is the `data.member` of member.* events. */
export class MemberView {
  @ApiProperty({ example: 'mem_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiPropertyOptional({ example: 'usr_4f9QdY0m2kBz7Lr1Xc8VtN3a', description: 'Present for active members' }) userId?: string;
  @ApiProperty() email!: string;
  @ApiProperty({ type: String, nullable: true }) firstName!: string | null;
  @ApiProperty({ type: String, nullable: true }) lastName!: string | null;
  @ApiProperty({ enum: ALL_ROLES }) role!: Role;
  @ApiProperty({ enum: MEMBER_STATUSES }) status!: MemberStatus;
  @ApiPropertyOptional({ type: String, format: 'date-time', description: 'Present for invited members' }) invitedAt?: string;
  @ApiPropertyOptional({ type: String, format: 'date-time', description: 'Present for active members' }) joinedAt?: string;
  @ApiProperty({ type: String, format: 'date-time' }) updatedAt!: string;
}

export class MemberListResponse {
  @ApiProperty({ type: MemberView, isArray: true }) members!: MemberView[];
  @ApiProperty({ type: 'integer' }) totalCount!: number;
  @ApiProperty() hasMore!: boolean;
}

export class InvitedMemberView {
  @ApiProperty({ example: 'mem_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty() email!: string;
  @ApiProperty({ type: String, nullable: true }) firstName!: string | null;
  @ApiProperty({ type: String, nullable: true }) lastName!: string | null;
  @ApiProperty({ enum: ALL_ROLES }) role!: Role;
  @ApiProperty({ enum: ['invited'] }) status!: 'invited';
  @ApiProperty({ type: String, format: 'date-time' }) invitedAt!: string;
}

export class InvitedMemberResponse {
  @ApiProperty({ type: InvitedMemberView }) member!: InvitedMemberView;
}

export class MemberRoleView {
  @ApiProperty({ example: 'mem_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty({ enum: ALL_ROLES }) role!: Role;
  @ApiProperty({ type: String, format: 'date-time' }) updatedAt!: string;
}

export class MemberRoleResponse {
  @ApiProperty({ type: MemberRoleView }) member!: MemberRoleView;
}

export class JoinedMemberView {
  @ApiProperty({ example: 'mem_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) id!: string;
  @ApiProperty({ example: 'usr_4f9QdY0m2kBz7Lr1Xc8VtN3a' }) userId!: string;
  @ApiProperty() email!: string;
  @ApiProperty({ enum: ALL_ROLES }) role!: Role;
  @ApiProperty({ enum: ['active'] }) status!: 'active';
  @ApiProperty({ type: String, format: 'date-time' }) joinedAt!: string;
}
