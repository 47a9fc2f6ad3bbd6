import { Injectable } from '@nestjs/common';
import type { TenantScope } from '@app/common';
import { TransactionHost } from '@app/database';
import { RoutingForm } from './entities/routing-form.entity.js';
import { RoutingResponse } from './entities/routing-response.entity.js';

export interface ResponseFilter {
  from: Date | null;
  to: Date | null;
}

/** The only place that touches routing_forms and routing_responses; every method is scoped by organization. */
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

  /** Empties the answers of the scope's responses with an email-type answer equal to `email` (case ignored). */
  async eraseAnswersOf(scope: TenantScope, email: string): Promise<void> {
    await this.tx.transactional.query(
      `UPDATE routing_responses SET answers = '[]'::jsonb
        WHERE organization_id = $1 AND livemode = $2
          AND EXISTS (SELECT 1 FROM jsonb_array_elements(answers) AS a
                       WHERE a->>'type' = 'email' AND lower(a->>'value') = lower($3))`,
      [scope.organizationId, scope.livemode, email],
    );
  }
}
