import { Controller, Get, Headers, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Access, ApiErrors, AppError, CurrentPrincipal, type Principal, Public, Audited } from '@app/common';
import { CalendarFeedsService } from './calendar-feeds.service.js';
import { CalendarFeedResponse } from './dto/calendar-feed.dto.js';

/**
 * Whether `If-None-Match` matches the current entity tag (RFC 9110 §13.1.2): `*`, or a list of tags any of which
 * equals it by the weak comparison (`W/"x"` matches `"x"`).
 */
function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string): string => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => opaque(tag) === opaque(etag));
}

@ApiTags('calendars')
@Controller()
export class CalendarFeedsController {
  constructor(private readonly feeds: CalendarFeedsService) {}

  @Get('users/me/calendar-feed')
  @Access({})
  @ApiOperation({
    operationId: 'getCalendarFeed',
    description:
      "The URL of the caller's personal iCalendar feed of the bookings they host, to subscribe to in any calendar app. The URL is the secret: anyone who has it can read the feed. JWT only.",
    summary: 'The caller’s calendar feed URL: its hosted bookings, for any calendar app (JWT only)',
  })
  @ApiResponse({ status: 200, type: CalendarFeedResponse })
  @ApiErrors(401, 403)
  get(@CurrentPrincipal() principal: Principal): Promise<CalendarFeedResponse> {
    return this.feeds.url(principal);
  }

  @Post('users/me/calendar-feed/rotate')
  @Audited('calendar_feed.rotated', { self: 'user' })
  @HttpCode(200)
  @Access({})
  @ApiOperation({
    operationId: 'rotateCalendarFeed',
    description: "Replaces the feed's URL with a new one: the old URL answers 404 at once. For a URL that leaked. JWT only.",
    summary: 'A new feed URL; the old one answers 404 at once (JWT only)',
  })
  @ApiResponse({ status: 200, type: CalendarFeedResponse })
  @ApiErrors(401, 403)
  rotate(@CurrentPrincipal() principal: Principal): Promise<CalendarFeedResponse> {
    return this.feeds.rotate(principal);
  }

  @Get('calendar-feeds/:file')
  @Public()
  @ApiOperation({
    operationId: 'getCalendarFeedFile',
    summary: 'A member’s bookings as iCalendar (the URL is the credential)',
    description:
      'Live confirmed (CONFIRMED) and pending (TENTATIVE) bookings the member hosts, 30 days back to 365 ahead. ETag; 304 for If-None-Match.',
  })
  @ApiParam({ name: 'file', description: '`<token>.ics`', schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}\\.ics$' } })
  // The iCalendar body is the 200's alone: errors are the API's error JSON like everywhere else.
  @ApiResponse({ status: 200, description: 'text/calendar; charset=utf-8', content: { 'text/calendar': { schema: { type: 'string' } } } })
  @ApiResponse({ status: 304, description: 'Not modified since the ETag sent in If-None-Match' })
  @ApiErrors(404)
  async file(
    @Param('file') file: string,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const feed = file.endsWith('.ics') ? await this.feeds.render(file.slice(0, -4)) : null;
    if (!feed) throw AppError.notFound('Calendar feed');
    void reply.header('etag', feed.etag).header('cache-control', 'private, max-age=0');
    if (noneMatch(ifNoneMatch, feed.etag)) {
      void reply.status(304).send();
      return;
    }
    void reply.status(200).type('text/calendar; charset=utf-8').send(feed.ics);
  }
}
