import { Init1763712000000 } from './1763712000000-Init.js';
import { Identity1795242004689 } from './1795242004689-Identity.js';
import { MailOutbox1795242143062 } from './1795242143062-MailOutbox.js';
import { DomainEvents1795242304394 } from './1795242304394-DomainEvents.js';
import { Scheduling1795242807800 } from './1795242807800-Scheduling.js';
import { Webhooks1795243016760 } from './1795243016760-Webhooks.js';
import { Idempotency1795243428453 } from './1795243428453-Idempotency.js';
import { MemberNames1795300000000 } from './1795300000000-MemberNames.js';
import { BookingHostPosition1795471654591 } from './1795471654591-BookingHostPosition.js';
import { IdempotencyLocks1795473026388 } from './1795473026388-IdempotencyLocks.js';
import { Calendars1795474324722 } from './1795474324722-Calendars.js';
import { CalendarWrites1795475408330 } from './1795475408330-CalendarWrites.js';
import { BookingFeeds1795475605458 } from './1795475605458-BookingFeeds.js';
import { AvailabilityVersions1795481064901 } from './1795481064901-AvailabilityVersions.js';
import { Holds1795500000000 } from './1795500000000-Holds.js';
import { BookingQuestions1795500100000 } from './1795500100000-BookingQuestions.js';
import { PublishableKeys1795500200000 } from './1795500200000-PublishableKeys.js';
import { LoginFailuresPerClient1795500300000 } from './1795500300000-LoginFailuresPerClient.js';
import { SeatsAndSeries1795585466508 } from './1795585466508-SeatsAndSeries.js';
import { NoShows1795666056335 } from './1795666056335-NoShows.js';
import { BookingReminders1795676048865 } from './1795676048865-BookingReminders.js';
import { EncryptionKeyCheck1795500400000 } from './1795500400000-EncryptionKeyCheck.js';
import { VisitorBookings1795699069256 } from './1795699069256-VisitorBookings.js';
import { QueueFailedIndexes1795708617467 } from './1795708617467-QueueFailedIndexes.js';
import { LeasedRows1795711641498 } from './1795711641498-LeasedRows.js';
import { QuietParameterLog1795712608727 } from './1795712608727-QuietParameterLog.js';
import { TraceContext1795713180010 } from './1795713180010-TraceContext.js';
import { ReminderLeaseQueue1795714333835 } from './1795714333835-ReminderLeaseQueue.js';
import { OutboxLeaseQueue1795719072494 } from './1795719072494-OutboxLeaseQueue.js';
import { AttendeeErasure1795720000000 } from './1795720000000-AttendeeErasure.js';
import { AuditLog1795800000000 } from './1795800000000-AuditLog.js';
import { OutOfOffice1795810000000 } from './1795810000000-OutOfOffice.js';
import { SchedulingPolicies1795820000000 } from './1795820000000-SchedulingPolicies.js';
import { AuditActorActionIndex1795830000000 } from './1795830000000-AuditActorActionIndex.js';
import { RetentionSweeps1795840000000 } from './1795840000000-RetentionSweeps.js';
import { CalendarWriteOrder1795874356926 } from './1795874356926-CalendarWriteOrder.js';
import { AuditSettlementOrder1795875272929 } from './1795875272929-AuditSettlementOrder.js';
import { OutboxFailedIndex1795875782448 } from './1795875782448-OutboxFailedIndex.js';
import { RoutingForms1795880000000 } from './1795880000000-RoutingForms.js';
import { PublicRoutingForms1795890000000 } from './1795890000000-PublicRoutingForms.js';
import { EnterpriseIdentity1795900000000 } from './1795900000000-EnterpriseIdentity.js';
import { OAuth1795904900000 } from './1795904900000-OAuth.js';
import { ReaderLocales1795905200000 } from './1795905200000-ReaderLocales.js';
import { OrganizationWritePositions1795906000000 } from './1795906000000-OrganizationWritePositions.js';
import { VolumeIndexes1795906100000 } from './1795906100000-VolumeIndexes.js';
import { PartitionedLogs1795910000000 } from './1795910000000-PartitionedLogs.js';
import { KeptBookingCounts1795912996146 } from './1795912996146-KeptBookingCounts.js';
/**
 * Every migration, in order. Listed here rather than globbed so the same list works from
 * TypeScript (tests) and compiled JavaScript (production); add each generated migration.
 */
export const MIGRATIONS = [
  Init1763712000000,
  Identity1795242004689,
  MailOutbox1795242143062,
  DomainEvents1795242304394,
  Scheduling1795242807800,
  Webhooks1795243016760,
  Idempotency1795243428453,
  MemberNames1795300000000,
  BookingHostPosition1795471654591,
  IdempotencyLocks1795473026388,
  Calendars1795474324722,
  CalendarWrites1795475408330,
  BookingFeeds1795475605458,
  AvailabilityVersions1795481064901,
  Holds1795500000000,
  BookingQuestions1795500100000,
  PublishableKeys1795500200000,
  LoginFailuresPerClient1795500300000,
  EncryptionKeyCheck1795500400000,
  SeatsAndSeries1795585466508,
  NoShows1795666056335,
  BookingReminders1795676048865,
  VisitorBookings1795699069256,
  QueueFailedIndexes1795708617467,
  LeasedRows1795711641498,
  QuietParameterLog1795712608727,
  TraceContext1795713180010,
  ReminderLeaseQueue1795714333835,
  OutboxLeaseQueue1795719072494,
  AttendeeErasure1795720000000,
  AuditLog1795800000000,
  OutOfOffice1795810000000,
  SchedulingPolicies1795820000000,
  AuditActorActionIndex1795830000000,
  RetentionSweeps1795840000000,
  CalendarWriteOrder1795874356926,
  AuditSettlementOrder1795875272929,
  OutboxFailedIndex1795875782448,
  RoutingForms1795880000000,
  PublicRoutingForms1795890000000,
  EnterpriseIdentity1795900000000,
  OAuth1795904900000,
  ReaderLocales1795905200000,
  OrganizationWritePositions1795906000000,
  VolumeIndexes1795906100000,
  PartitionedLogs1795910000000,
  KeptBookingCounts1795912996146,
];
