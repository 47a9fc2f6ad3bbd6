import { Injectable } from '@nestjs/common';
import type { TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { RoutingForm } from './entities/routing-form.entity.js';
import { RoutingResponse } from './entities/routing-response.entity.js';
import { VisitorResponse } from './entities/visitor-response.entity.js';

export interface ResponseFilter {
  from: Date | null;
  to: Date | null;
}

/** The only place that touches routing_forms, routing_responses and visitor_responses; every method is scoped by organization. */
@Injectable()
export class RoutingFormsRepository {
  constructor(private readonly tx: TransactionHost) {}

  async insert(scope: TenantScope, form: RoutingForm): Promise<void> {
    await this.tx.transactional.insert(RoutingForm, { ...form, organizationId: scope.organizationId });
  }

  async update(scope: TenantScope, form: RoutingForm): Promise<void> {
    const { id, name, fields, routes, fallback, updatedAt } = form;
    await this.tx.transactional.update(
      RoutingForm,
      { organizationId: scope.organizationId, id },
      { name, fields, routes, fallback, updatedAt },
    );
  }

  find(scope: TenantScope, id: string): Promise<RoutingForm | null> {
    return this.tx.reads.findOne(RoutingForm, { where: { organizationId: scope.organizationId, id } });
  }

  /** The form, its row locked until the caller's transaction ends (a PATCH reads what it changes under the lock). */
  findForUpdate(scope: TenantScope, id: string): Promise<RoutingForm | null> {
    return this.tx.transactional.findOne(RoutingForm, {
      where: { organizationId: scope.organizationId, id },
      lock: { mode: 'pessimistic_write' },
    });
  }

  async delete(scope: TenantScope, id: string): Promise<boolean> {
    const result = await this.tx.transactional.delete(RoutingForm, { organizationId: scope.organizationId, id });
    return (result.affected ?? 0) > 0;
  }

  list(scope: TenantScope, offset: number, limit: number): Promise<[RoutingForm[], number]> {
    return this.tx.reads.findAndCount(RoutingForm, {
      where: { organizationId: scope.organizationId },
      order: { createdAt: 'ASC', id: 'ASC' },
      skip: offset,
      take: limit,
    });
  }

  async insertResponse(scope: TenantScope, response: RoutingResponse): Promise<void> {
    await this.tx.transactional.insert(RoutingResponse, {
      ...response,
      organizationId: scope.organizationId,
      livemode: scope.livemode,
    });
  }

  /** A page of the form's responses in the scope's mode, newest first, and the count of all that match. */
  listResponses(
    scope: TenantScope,
    formId: string,
    filter: ResponseFilter,
    offset: number,
    limit: number,
  ): Promise<[RoutingResponse[], number]> {
    const query = this.tx.reads
      .createQueryBuilder(RoutingResponse, 'r')
      .where('r.organizationId = :organizationId AND r.livemode = :livemode AND r.routingFormId = :formId', {
        organizationId: scope.organizationId,
        livemode: scope.livemode,
        formId,
      });
    if (filter.from !== null) query.andWhere('r.createdAt >= :from', { from: filter.from });
    if (filter.to !== null) query.andWhere('r.createdAt < :to', { to: filter.to });
    return query.orderBy('r.createdAt', 'DESC').addOrderBy('r.id', 'DESC').skip(offset).take(limit).getManyAndCount();
  }

  /**
   * Empties the answers of the scope's responses with an email-type answer equal to `email` (case ignored); returns
   * their ids. The visitor rows of those responses go with them (they name the client address).
   */
  async eraseAnswersOf(scope: TenantScope, email: string): Promise<string[]> {
    const [rows]: [{ id: string }[], number] = await this.tx.transactional.query(
      `UPDATE routing_responses SET answers = '[]'::jsonb
        WHERE organization_id = $1 AND livemode = $2
          AND EXISTS (SELECT 1 FROM jsonb_array_elements(answers) AS a
                       WHERE a->>'type' = 'email' AND lower(a->>'value') = lower($3))
        RETURNING id`,
      [scope.organizationId, scope.livemode, email],
    );
    const ids = rows.map((row) => row.id);
    if (ids.length > 0) {
      await this.tx.transactional.query(`DELETE FROM visitor_responses WHERE organization_id = $1 AND response_id = ANY($2::text[])`, [
        scope.organizationId,
        ids,
      ]);
    }
    return ids;
  }

  /** Which of these ids are forms of the organization. */
  async existingIds(scope: TenantScope, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows: { id: string }[] = await this.tx.reads.query(
      `SELECT id FROM routing_forms WHERE organization_id = $1 AND id = ANY($2::text[])`,
      [scope.organizationId, [...ids]],
    );
    return new Set(rows.map((row) => row.id));
  }

  /** Serializes one visitor's public responses (key and client address) until the transaction ends, on every instance. */
  async lockVisitor(scope: TenantScope, clientAddress: string): Promise<void> {
    await this.tx.transactional.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [
      `visitor-responses:${scope.organizationId}:${clientAddress}`,
    ]);
  }

  /** When the visitor's responses made after `since` were made, newest first, at most `limit` of them. */
  async visitorResponsesSince(scope: TenantScope, clientAddress: string, since: Date, limit: number): Promise<Date[]> {
    const rows: { created_at: Date }[] = await this.tx.transactional.query(
      `SELECT created_at FROM visitor_responses
        WHERE organization_id = $1 AND client_address = $2 AND created_at > $3
        ORDER BY created_at DESC LIMIT $4`,
      [scope.organizationId, clientAddress, since, limit],
    );
    return rows.map((row) => row.created_at);
  }

  async insertVisitorResponse(scope: TenantScope, row: VisitorResponse): Promise<void> {
    await this.tx.transactional.insert(VisitorResponse, { ...row, organizationId: scope.organizationId });
  }

  /** Cleanup: rows made before `before` count toward no limit any more. */
  async deleteVisitorResponsesBefore(before: Date): Promise<number> {
    const result: [unknown[], number] = await this.tx
      .outside('the sweep runs as a job of its own, in autocommit')
      .query(`DELETE FROM visitor_responses WHERE created_at < $1`, [before]);
    return result[1] ?? 0;
  }
}
