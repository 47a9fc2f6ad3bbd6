import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Access, ApiErrors, CurrentPrincipal, PaginationQueryDto, Permission, Scope, type Principal, IdParam, Audited } from '@app/common';
import {
  CreatedWebhookResponse,
  CreateWebhookDto,
  UpdateWebhookDto,
  WebhookDeliveryListResponse,
  ListDeliveriesQueryDto,
  WebhookDeliveryResponse,
  WebhookListResponse,
  WebhookResponse,
} from './dto/webhook.dto.js';
import { WebhooksService } from './webhooks.service.js';

const READ = (): MethodDecorator & ClassDecorator => Access({ scope: Scope.WebhooksRead, permission: Permission.ManageWebhooks });
const WRITE = (): MethodDecorator & ClassDecorator => Access({ scope: Scope.WebhooksWrite, permission: Permission.ManageWebhooks });

@ApiTags('webhooks')
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @Audited('webhook.created')
  @WRITE()
  @ApiOperation({
    operationId: 'createWebhook',
    summary: 'Create a webhook endpoint; the signing secret is returned once',
    description:
      'Test-mode keys create test-mode webhooks, which receive test-mode events only. Unless WEBHOOK_ALLOW_PRIVATE_URLS is on, ' +
      'the URL must be https and its host must resolve only to public addresses.',
  })
  @ApiResponse({ status: 201, type: CreatedWebhookResponse })
  @ApiErrors(400, 401, 403)
  create(@CurrentPrincipal() principal: Principal, @Body() dto: CreateWebhookDto): Promise<CreatedWebhookResponse> {
    return this.webhooks.create(principal, dto);
  }

  @Get()
  @READ()
  @ApiOperation({
    operationId: 'listWebhooks',
    description:
      "The webhook endpoints of the caller's organization and mode (live or test), newest first, paged (scope webhooks:read). Secrets are not shown.",
    summary: 'List the webhooks of the caller’s organization and mode, newest first',
  })
  @ApiResponse({ status: 200, type: WebhookListResponse })
  @ApiErrors(400, 401, 403)
  list(@CurrentPrincipal() principal: Principal, @Query() page: PaginationQueryDto): Promise<WebhookListResponse> {
    return this.webhooks.list(principal, page);
  }

  @Get(':id')
  @READ()
  @ApiOperation({
    operationId: 'getWebhook',
    description:
      'One webhook endpoint: its URL, events, description and whether it is active (scope webhooks:read). The secret is not shown.',
    summary: 'Get a webhook',
  })
  @ApiResponse({ status: 200, type: WebhookResponse })
  @ApiErrors(401, 403, 404)
  get(@CurrentPrincipal() principal: Principal, @IdParam('id', 'wh') id: string): Promise<WebhookResponse> {
    return this.webhooks.get(principal, id);
  }

  @Patch(':id')
  @Audited('webhook.updated')
  @WRITE()
  @ApiOperation({
    operationId: 'updateWebhook',
    description:
      "Changes the endpoint's URL, events, description or active flag. An inactive endpoint gets no new deliveries (scope webhooks:write).",
    summary: 'Change a webhook’s url, events, description or active flag',
  })
  @ApiResponse({ status: 200, type: WebhookResponse })
  @ApiErrors(400, 401, 403, 404)
  update(
    @CurrentPrincipal() principal: Principal,
    @IdParam('id', 'wh') id: string,
    @Body() dto: UpdateWebhookDto,
  ): Promise<WebhookResponse> {
    return this.webhooks.update(principal, id, dto);
  }

  @Delete(':id')
  @Audited('webhook.deleted')
  @WRITE()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteWebhook',
    description:
      'Deletes the endpoint with its delivery log: nothing more is sent to it, deliveries still queued are dropped (scope webhooks:write).',
    summary: 'Delete a webhook with its deliveries; nothing more is sent to it',
  })
  @ApiResponse({ status: 204 })
  @ApiErrors(401, 403, 404)
  async remove(@CurrentPrincipal() principal: Principal, @IdParam('id', 'wh') id: string): Promise<void> {
    await this.webhooks.remove(principal, id);
  }

  @Post(':id/test')
  @Audited('webhook.tested')
  @WRITE()
  @HttpCode(202)
  @ApiOperation({
    operationId: 'testWebhook',
    description:
      'Queues a signed `webhook.test` event for this endpoint only, to check its URL and signature verification; it shows in the delivery log like any other (scope webhooks:write).',
    summary: 'Send a signed webhook.test event to this endpoint only',
  })
  @ApiResponse({ status: 202, type: WebhookDeliveryResponse })
  @ApiErrors(401, 403, 404)
  test(@CurrentPrincipal() principal: Principal, @IdParam('id', 'wh') id: string): Promise<WebhookDeliveryResponse> {
    return this.webhooks.sendTest(principal, id);
  }

  @Get(':id/deliveries')
  @READ()
  @ApiOperation({
    operationId: 'listWebhookDeliveries',
    description:
      "The endpoint's deliveries, newest first, paged: each event's status, attempts, last and next attempt (scope webhooks:read).",
    summary: 'List the deliveries of a webhook, newest first',
  })
  @ApiResponse({ status: 200, type: WebhookDeliveryListResponse })
  @ApiErrors(400, 401, 403, 404)
  deliveries(
    @CurrentPrincipal() principal: Principal,
    @IdParam('id', 'wh') id: string,
    @Query() query: ListDeliveriesQueryDto,
  ): Promise<WebhookDeliveryListResponse> {
    return this.webhooks.listDeliveries(principal, id, query);
  }

  @Post(':id/deliveries/:deliveryId/retry')
  @Audited('webhook_delivery.retried', { param: 'deliveryId' })
  @WRITE()
  @HttpCode(202)
  @ApiOperation({
    operationId: 'retryWebhookDelivery',
    description:
      'Queues one more attempt of the delivery now, whatever its status (a failed or exhausted one included); the answer is the delivery as queued (scope webhooks:write).',
    summary: 'One more attempt of a delivery, now, whatever its status',
  })
  @ApiResponse({ status: 202, type: WebhookDeliveryResponse })
  @ApiErrors(401, 403, 404)
  retry(
    @CurrentPrincipal() principal: Principal,
    @IdParam('id', 'wh') id: string,
    @IdParam('deliveryId', 'whdel') deliveryId: string,
  ): Promise<WebhookDeliveryResponse> {
    return this.webhooks.retryDelivery(principal, id, deliveryId);
  }
}
