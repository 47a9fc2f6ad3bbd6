import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeysController } from './api-keys.controller.js';
import { ApiKeysRepository } from './api-keys.repository.js';
import { ApiKeysService } from './api-keys.service.js';
import { EventTypesModule } from '../event-types/index.js';
import { RoutingFormsModule } from '../routing-forms/index.js';
import { ApiKey } from './entities/api-key.entity.js';

@Module({
  imports: [TypeOrmModule.forFeature([ApiKey]), EventTypesModule, RoutingFormsModule],
  controllers: [ApiKeysController],
  providers: [ApiKeysRepository, ApiKeysService],
  exports: [ApiKeysService],
})
export class ApiKeysModule {}
