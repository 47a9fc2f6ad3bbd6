import { ApiProperty } from '@nestjs/swagger';

/** A console login's or refresh's answer: the access token alone (the refresh token is in the cookie). */
export class ConsoleTokenResponse {
  @ApiProperty({ description: 'JWT (HS256), sent as `Authorization: Bearer <token>`' }) accessToken!: string;
  @ApiProperty({ enum: ['Bearer'] }) tokenType!: 'Bearer';
  @ApiProperty({ type: 'integer', description: 'Access-token lifetime in seconds' }) expiresIn!: number;
}
