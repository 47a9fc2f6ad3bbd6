import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Length, MaxLength } from 'class-validator';
import { IsIanaTimeZone, Optional } from '@app/common';
import { JoinedMemberView } from '../../team/index.js';
import { TokensResponse } from './auth.dto.js';

export class AcceptInvitationDto {
  @ApiProperty({ description: 'The token from the invitation email’s accept link' })
  @IsString()
  @MaxLength(256)
  token!: string;

  @ApiProperty({ minLength: 8, maxLength: 128 })
  @IsString()
  @Length(8, 128)
  password!: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 100, description: 'Default: the name the invitation was sent with' })
  @Optional()
  @IsString()
  @Length(1, 100)
  firstName?: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 100, description: 'Default: the name the invitation was sent with' })
  @Optional()
  @IsString()
  @Length(1, 100)
  lastName?: string;

  @ApiPropertyOptional({ default: 'UTC', example: 'Europe/Berlin' })
  @Optional()
  @IsIanaTimeZone()
  timezone?: string;
}

export class AcceptInvitationResponse extends TokensResponse {
  @ApiProperty({ type: JoinedMemberView }) member!: JoinedMemberView;
}
